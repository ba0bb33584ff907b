import type { Root } from 'hast';
import rehypeRaw from 'rehype-raw';
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import { unified } from 'unified';

/**
 * What HTML may keep once sanitized: GitHub's schema (no script, no event handler, no style, no
 * `javascript:` URL). The one rule for a post's own HTML (./render.ts) and for HTML that comes from
 * elsewhere (a reply from the fediverse), so both are shown with the same safety.
 */
export const SANITIZE_SCHEMA = defaultSchema;

const sanitizer = unified().use(rehypeRaw).use(rehypeSanitize, SANITIZE_SCHEMA).use(rehypeStringify);

/** HTML from anywhere, parsed as a browser would (rehype-raw) and sanitized as a post's HTML is: safe to insert in a page. */
export function sanitizedHtml(html: string): string {
  const tree: Root = { type: 'root', children: [{ type: 'raw', value: html }] };
  return sanitizer.stringify(sanitizer.runSync(tree));
}
