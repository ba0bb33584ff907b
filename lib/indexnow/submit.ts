import type { Settings } from '../settings';

/** IndexNow takes at most this many URLs a request. */
export const INDEXNOW_BATCH = 10_000;

export type Submission = { ok: true; batches: { urls: number; status: number }[] } | { ok: false; submitted: number };

/**
 * Submits URLs of this site to INDEXNOW_ENDPOINT (the key must be set), in batches of at most
 * 10,000; stops at the first batch IndexNow does not answer (`submitted` URLs went before it).
 */
export async function submitToIndexNow(urls: readonly string[], settings: Pick<Settings, 'indexNow' | 'site'>): Promise<Submission> {
  const { indexNow } = settings;
  const key = indexNow.key;
  if (!key) throw new Error('INDEXNOW_KEY is not set');
  const site = new URL(settings.site.url);
  const batches: { urls: number; status: number }[] = [];
  for (let start = 0; start < urls.length; start += INDEXNOW_BATCH) {
    const urlList = urls.slice(start, start + INDEXNOW_BATCH);
    try {
      const response = await fetch(indexNow.endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ host: site.host, key, keyLocation: `${site.origin}/${key}.txt`, urlList }),
        signal: AbortSignal.timeout(15_000),
      });
      batches.push({ urls: urlList.length, status: response.status });
    } catch {
      return { ok: false, submitted: batches.reduce((sum, batch) => sum + batch.urls, 0) };
    }
  }
  return { ok: true, batches };
}

/** Whether IndexNow accepted every batch (200 or 202). */
export function accepted(batches: readonly { status: number }[]): boolean {
  return batches.every((batch) => batch.status === 200 || batch.status === 202);
}
