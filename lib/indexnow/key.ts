export const INDEXNOW_KEY_PATTERN = /^[A-Za-z0-9-]{8,128}$/;

/** The IndexNow key (INDEXNOW_KEY), served at `/{key}.txt`; undefined when unset or malformed. */
export function indexNowKey(): string | undefined {
  const key = process.env.INDEXNOW_KEY;
  return key && INDEXNOW_KEY_PATTERN.test(key) ? key : undefined;
}
