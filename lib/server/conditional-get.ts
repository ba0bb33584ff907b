import type { IncomingMessage } from 'node:http';
import { etagsOf, type Copies } from './encodings';
import { headerValue, type HeaderList } from './response-headers';

/**
 * Conditional requests (RFC 9110 §13), evaluated by the read cache against the
 * bytes it keeps rather than by Next.
 */

/** Request headers whose conditions the cache evaluates itself. */
export const CONDITIONAL_HEADERS = ['if-match', 'if-unmodified-since', 'if-none-match', 'if-modified-since', 'if-range'] as const;

/** What the conditions are evaluated against: a kept response's status, head and validators. */
export type Validated = Pick<Copies, 'etag' | 'gzip' | 'br'> & { status: number; headers: HeaderList };

/** RFC 9110 §13.1.2: weak comparison, `*`, and a list of tags. */
export function matchesIfNoneMatch(header: string | undefined, etags: string[]): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  const wanted = new Set(etags.map(bare));
  return header.split(',').some((tag) => wanted.has(bare(tag)));
}

/**
 * RFC 9110 §13.2.2, steps 1 and 2: If-Match (strong comparison), else
 * If-Unmodified-Since, on a 2xx representation; false means answer 412.
 */
export function preconditionHolds(req: Pick<IncomingMessage, 'headers'>, entry: Validated): boolean {
  if (entry.status < 200 || entry.status > 299) return true;
  const ifMatch = req.headers['if-match'];
  if (ifMatch !== undefined) {
    if (ifMatch.trim() === '*') return true;
    const current = etagsOf(entry);
    return ifMatch.split(',').some((tag) => current.includes(tag.trim()));
  }
  const ifUnmodifiedSince = req.headers['if-unmodified-since'];
  if (ifUnmodifiedSince === undefined) return true;
  const since = Date.parse(ifUnmodifiedSince);
  const lastModified = Date.parse(headerValue(entry.headers, 'last-modified'));
  // An invalid date, or no date to compare, leaves the condition unevaluated.
  return Number.isNaN(since) || Number.isNaN(lastModified) || lastModified <= since;
}

/**
 * RFC 9110 §13.2.2, steps 3 and 4: If-None-Match (weak comparison), else If-Modified-Since, on a
 * 200; true means answer 304. If-None-Match is compared with the ETag of the copy that would be
 * sent (`sent`) only: a 304 tells a cache its stored copy is current and carries that copy's
 * ETag, so one answered to the gzip copy's tag on a brotli request would have the cache
 * relabel gzip bytes as brotli (RFC 9111 §4.3.4).
 */
export function isNotModified(req: Pick<IncomingMessage, 'headers'>, entry: Pick<Validated, 'status' | 'headers'>, sent: string): boolean {
  if (entry.status !== 200) return false;
  const ifNoneMatch = req.headers['if-none-match'];
  if (ifNoneMatch !== undefined) return matchesIfNoneMatch(ifNoneMatch, [sent]);
  const ifModifiedSince = req.headers['if-modified-since'];
  if (ifModifiedSince === undefined) return false;
  const lastModified = headerValue(entry.headers, 'last-modified');
  return Boolean(lastModified) && Date.parse(lastModified) <= Date.parse(ifModifiedSince);
}
