import type { IncomingHttpHeaders } from 'node:http';
import { findShared, shared } from '../process-shared';
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

/** A negotiated path's markdown twin and the variant a request gets. */
export type Negotiation = { twin: MarkdownTwin; variant: Variant };

/**
 * The one decision about a path and an Accept header: undefined where the path
 * has a single answer, else the page's markdown twin and the variant the request
 * gets. The read cache keys by it and the response head varies on Accept by it;
 * proxy.ts routes by it (under lectern's server, by the decision recorded for it:
 * `negotiationFor`).
 */
export function negotiate(pathname: string, accept: string | null | undefined): Negotiation | undefined {
  const twin = markdownTwinOf(pathname);
  if (!twin) return undefined;
  return { twin, variant: prefersMarkdown(accept) ? 'markdown' : 'html' };
}

/** The request header a negotiated answer varies on (its `Vary`). */
export const NEGOTIATED_ON = 'Accept';

/**
 * One decision per request: lectern's server decides the variant of a read before it hands the
 * request to Next (the read cache keys by it) and records it under this header; proxy.ts takes
 * that record instead of deciding again. The header is lectern's own: every request its request
 * handler hands to Next carries the handler's record there, or none (`recordVariant`), never a
 * client's; proxy.ts believes it only in a process where that handler runs (`recordsVariants`).
 * Under `next start` or on a platform host nothing replaces a client's, so there proxy.ts decides
 * itself: a forged record never picks the variant a cache keeps under another Accept. (The
 * server's own requests to Next over its loopback port carry no record and are decided there too.)
 */
export const VARIANT_HEADER = 'x-lectern-variant';

/** Under this name (lib/process-shared.ts) lectern's request handler says it records every variant it hands to Next. */
const RECORDS_VARIANTS = 'records-variants';

/** Said once by lectern's request handler when it is made: from then on a recorded variant is believed. */
export function recordsVariants(): void {
  shared(RECORDS_VARIANTS, () => true);
}

/**
 * Records the variant decided for a request handed to Next (nothing where its path has one
 * answer), in place of whatever the client sent under VARIANT_HEADER.
 */
export function recordVariant(headers: IncomingHttpHeaders, variant: Variant | undefined): void {
  if (variant) headers[VARIANT_HEADER] = variant;
  else delete headers[VARIANT_HEADER];
}

let believed = false;

/** Whether a recorded variant is lectern's: its request handler runs in this process (once true, always). */
function recordIsBelieved(): boolean {
  believed ||= findShared<boolean>(RECORDS_VARIANTS) === true;
  return believed;
}

/**
 * What proxy.ts routes by: the decision lectern's server recorded for this request, or where
 * it recorded none (its path has one answer there, or no such server runs) `negotiate`'s.
 */
export function negotiationFor(pathname: string, headers: Headers): Negotiation | undefined {
  const twin = markdownTwinOf(pathname);
  if (!twin) return undefined;
  const recorded = recordIsBelieved() ? headers.get(VARIANT_HEADER) : null;
  if (recorded === 'html' || recorded === 'markdown') return { twin, variant: recorded };
  return negotiate(pathname, headers.get('accept'));
}
