import { absoluteUrl } from '../runtime/site';
import { linkHeader } from './links';
import { markdownResponse } from './responses';

/** A page's markdown twin, naming the HTML page as canonical; `lastModified` is the newest change it shows (the build's moment for a page only a build changes). */
export function markdownPageResponse(body: string, pagePath: string, lastModified: number | undefined): Response {
  return markdownResponse(body, { lastModified, headers: { Link: linkHeader(absoluteUrl(pagePath), 'canonical', 'text/html') } });
}
