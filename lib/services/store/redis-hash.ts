/** A flat HGETALL reply (field, value, field, value…) as a record. */
export function hashFields(flat: unknown): Record<string, string> {
  const list = Array.isArray(flat) ? (flat as unknown[]) : [];
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) record[String(list[i])] = String(list[i + 1]);
  return record;
}
