import { parseWeightedList } from './q-values';

/**
 * Content-coding negotiation (RFC 9110 §12.5.3): which of the copies a server
 * holds to send for a request's `Accept-Encoding`.
 *
 * The highest q wins; at equal q brotli goes before gzip, and both before the
 * uncompressed bytes. `q=0` refuses a coding, `*` stands for every coding the
 * header does not name, and no header (or an empty one) means identity.
 * Identity is acceptable unless refused (`identity;q=0`, or `*;q=0` without
 * an `identity` entry); when the header does not name it, it ranks below every
 * coding the header lists, so `gzip;q=0.5` still gets gzip.
 */
export type Coding = 'br' | 'gzip' | 'identity';

/** At equal q, the first of these wins. */
const PREFERENCE: readonly Coding[] = ['br', 'gzip', 'identity'];

function parseAcceptEncoding(header: string): Map<string, number> {
  const entries = new Map<string, number>();
  for (const { value, q } of parseWeightedList(header)) {
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(value)) continue;
    // A coding named twice keeps its first entry.
    if (!entries.has(value)) entries.set(value, q);
  }
  return entries;
}

/** The q the header gives a coding. */
function qualityOf(entries: Map<string, number>, coding: Coding): number {
  // RFC 9110 §8.4.1.3: x-gzip is gzip.
  const named = entries.get(coding) ?? (coding === 'gzip' ? entries.get('x-gzip') : undefined);
  if (named !== undefined) return named;
  const any = entries.get('*');
  if (coding !== 'identity') return any ?? 0;
  if (any === 0) return 0;
  // Unnamed identity ranks below every coding the client listed.
  const listed = [...entries.values()].filter((q) => q > 0);
  return listed.length > 0 ? Math.min(...listed) : 1;
}

/**
 * The coding to send, among `available` (identity is always available).
 * Identity when nothing acceptable is available: a response the client did
 * not ask for in that form is better than none (RFC 9110 §12.5.3).
 */
export function chooseEncoding(header: string | string[] | undefined, available: readonly Exclude<Coding, 'identity'>[]): Coding {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value?.trim()) return 'identity';
  const entries = parseAcceptEncoding(value);
  let best: { coding: Coding; q: number } = { coding: 'identity', q: 0 };
  for (const coding of PREFERENCE) {
    if (coding !== 'identity' && !available.includes(coding)) continue;
    const q = qualityOf(entries, coding);
    if (q > best.q) best = { coding, q };
  }
  return best.coding;
}
