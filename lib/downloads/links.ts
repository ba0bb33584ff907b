import { createHmac, timingSafeEqual } from 'node:crypto';
import { absoluteUrl } from '../runtime/site';

/** The path every download link starts with. */
export const DOWNLOADS_PATH = '/downloads/';

/** Whether a path has a download link's shape, `/downloads/<order>/<file>` (the site's own pages under /downloads, such as /downloads/sent, have not). */
export function isDownloadPath(pathname: string): boolean {
  return pathname.startsWith(DOWNLOADS_PATH) && pathname.slice(DOWNLOADS_PATH.length).split('/').length === 2;
}

/** What a download link names: an order, one of its files (by place), and until when it works. */
export type LinkFacts = { order: string; file: number; expires: number };

const ORDER_ID = /^[A-Za-z0-9_-]{1,200}$/;

function signature(secret: string, link: LinkFacts): Buffer {
  return createHmac('sha256', secret).update(`${link.order}\n${link.file}\n${link.expires}`).digest();
}

/** A link's absolute URL, signed with the site's download key. */
export function downloadUrl(secret: string, link: LinkFacts): string {
  const sig = signature(secret, link).toString('base64url');
  return absoluteUrl(`${DOWNLOADS_PATH}${encodeURIComponent(link.order)}/${link.file}?expires=${link.expires}&signature=${sig}`);
}

/** One key per link, for counting its downloads. */
export function linkKey(link: LinkFacts): string {
  return `${link.order}:${link.file}:${link.expires}`;
}

/**
 * The link a request names, if its signature is the site's (compared in constant time):
 * `malformed` for a URL that is not a download link at all, `tampered` when it is one the
 * site did not sign.
 */
export function readLink(secret: string, pathname: string, search: URLSearchParams): LinkFacts | 'malformed' | 'tampered' {
  if (!isDownloadPath(pathname)) return 'malformed';
  const parts = pathname.slice(DOWNLOADS_PATH.length).split('/');
  const order = parts[0] ?? '';
  const fileText = parts[1] ?? '';
  const expiresText = search.get('expires') ?? '';
  const given = search.get('signature') ?? '';
  if (!ORDER_ID.test(order) || !/^(0|[1-9][0-9]{0,3})$/.test(fileText) || !/^[1-9][0-9]{0,15}$/.test(expiresText)) return 'malformed';
  const link = { order, file: Number(fileText), expires: Number(expiresText) };
  const expected = signature(secret, link);
  // Node's decoder skips what is not base64url and ignores the last character's spare bits: only
  // the signature as the site spells it is taken, so a link edited by hand is never a second link.
  if (!/^[A-Za-z0-9_-]+$/.test(given)) return 'tampered';
  const provided = Buffer.from(given, 'base64url');
  if (provided.length !== expected.length || !timingSafeEqual(provided, expected)) return 'tampered';
  if (provided.toString('base64url') !== given) return 'tampered';
  return link;
}
