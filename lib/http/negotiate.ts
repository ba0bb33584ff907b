import { parseWeightedList } from './q-values';
import { markdownTwinOf, type MarkdownTwin } from './markdown-twins';

/**
 * Content negotiation between the HTML page and its markdown source (RFC 9110 §12.5.1).
 * Markdown wins only when the client ranks `text/markdown` strictly above HTML;
 * a tie, wildcards or no Accept header mean HTML, which is what browsers expect.
 */
type Range = { type: string; subtype: string; q: number };

function parseAccept(header: string): Range[] {
  return parseWeightedList(header).flatMap(({ value, q }) => {
    const [type, subtype] = value.split('/');
    return type && subtype ? [{ type, subtype, q }] : [];
  });
}

/** The q the client gives a media type: the most specific matching range wins. */
function qualityOf(ranges: Range[], type: string, subtype: string): number {
  let best: { specificity: number; q: number } | undefined;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*' && range.subtype === '*'
            ? 0
            : -1;
    if (specificity < 0) continue;
    if (!best || specificity > best.specificity) best = { specificity, q: range.q };
  }
  return best?.q ?? 0;
}

export function prefersMarkdown(accept: string | null | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const markdown = qualityOf(ranges, 'text', 'markdown');
  const html = qualityOf(ranges, 'text', 'html');
  return markdown > 0 && markdown > html;
}

/** Which of a page's two answers a request gets. */
export type Variant = 'html' | 'markdown';

/**
 * The one decision about a path and an Accept header: undefined where the path
 * has a single answer, else the page's markdown twin and the variant the request
 * gets. proxy.ts routes by it, the read cache keys by it and the response head
 * varies on Accept by it.
 */
export function negotiate(pathname: string, accept: string | null | undefined): { twin: MarkdownTwin; variant: Variant } | undefined {
  const twin = markdownTwinOf(pathname);
  if (!twin) return undefined;
  return { twin, variant: prefersMarkdown(accept) ? 'markdown' : 'html' };
}

/** The request header a negotiated answer varies on (its `Vary`). */
export const NEGOTIATED_ON = 'Accept';
