import type { Product } from '../content';
import type { Settings } from '../settings';
import type { DownloadLinks } from '../services/mail/templates';
import { deliverablesOf } from './deliverables';
import { downloadUrl } from './links';

/**
 * The signed links of an order's files, made `now` (they work for the link lifetime from then);
 * undefined when the product has no files or no signing key is configured.
 */
export function downloadLinks(product: Product, order: string, now: number, downloads: Settings['downloads']): DownloadLinks | undefined {
  const files = deliverablesOf(product);
  if (!downloads.secret || files.length === 0) return undefined;
  const secret = downloads.secret;
  const expires = now + downloads.linkMs;
  return {
    files: files.map((file, index) => ({ name: file.name, url: downloadUrl(secret, { order, file: index, expires }) })),
    expires,
    limit: downloads.limit,
  };
}
