/** RFC 9110 §12.4.2 qvalue: 0 to 1 with at most three decimals. */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** One member of a weighted list: its value (lowercased, parameters other than q dropped) and its q. */
export type Weighted = { value: string; q: number };

/**
 * The members of a header that ranks its values with q-values (RFC 9110 §12.4.2: `Accept`,
 * `Accept-Encoding`, …), in order. A q that is not qvalue syntax refuses the member (q 0)
 * rather than guessing; no q is 1; empty members are skipped.
 */
export function parseWeightedList(header: string): Weighted[] {
  const members: Weighted[] = [];
  for (const part of header.split(',')) {
    const [value = '', ...params] = part.split(';').map((piece) => piece.trim());
    if (!value) continue;
    let q = 1;
    for (const param of params) {
      const [name, raw] = param.split('=').map((piece) => piece.trim());
      if (name?.toLowerCase() === 'q') q = raw !== undefined && QVALUE.test(raw) ? Number(raw) : 0;
    }
    members.push({ value: value.toLowerCase(), q });
  }
  return members;
}
