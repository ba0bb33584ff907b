import { z } from 'zod';
import { accepted as allAccepted, INDEXNOW_BATCH, submitToIndexNow } from '../indexnow/submit';
import { sitemapUrls } from '../sitemap/urls';
import { sameSecret } from '../services/tokens';
import { defineWriteRoute, problemStatus, type WriteContext, type WriteResult, type WriteSettings } from './definition';
import { writeRouteAddresses } from '../routes/manifest';

const LAST_SUBMISSION = 'indexnow:last-submission';

/** `Authorization: Bearer INDEX_NOTIFY_TOKEN`, compared in constant time; checked before the body is read. */
function authorizeIndexNotify(request: Request, { indexNow }: WriteSettings): WriteResult | undefined {
  const token = indexNow.notifyToken;
  if (!token || !indexNow.key)
    return { ok: false, problem: 'service-unavailable', detail: 'IndexNow is not configured on this site (INDEX_NOTIFY_TOKEN and INDEXNOW_KEY).' };
  const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
  if (!sameSecret(given, token))
    return {
      ok: false,
      problem: 'unauthorized',
      detail: 'Send Authorization: Bearer with the index notify token.',
      headers: { 'WWW-Authenticate': 'Bearer realm="index-notify"' },
    };
  return undefined;
}

const schema = z.strictObject({
  urls: z.array(z.url()).min(1).max(INDEXNOW_BATCH).optional().describe('URLs to submit; by default the ones changed since the last submission.'),
});

const responses = { '401': problemStatus('Missing or wrong bearer token.'), '502': problemStatus('IndexNow did not answer.') };

/**
 * Submits URLs to IndexNow in batches of at most 10,000: the ones given, or by
 * default the pages whose content changed since the last successful submission
 * (every page the first time).
 */
async function notifyIndexNow(input: z.output<typeof schema>, { services, settings }: WriteContext): Promise<WriteResult> {
  const site = new URL(settings.site.url);
  const last = Number((await services.store.settings.get(LAST_SUBMISSION)) ?? Number.NaN);
  const changed = sitemapUrls(settings.site).filter((url) => Number.isNaN(last) || (url.lastmod ?? 0) > last);
  const urls = input.urls ?? changed.map((url) => url.loc);
  const foreign = urls.filter((url) => new URL(url).host !== site.host);
  if (foreign.length > 0)
    return {
      ok: false,
      problem: 'invalid-input',
      detail: `Only URLs of ${site.host} can be submitted.`,
      errors: foreign.slice(0, 10).map((url) => ({ path: 'urls', message: `${url} is not on ${site.host}` })),
    };
  const endpoint = settings.indexNow.endpoint;
  const submission = await submitToIndexNow(urls, settings);
  if (!submission.ok)
    return {
      ok: false,
      problem: 'bad-gateway',
      detail: `IndexNow (${new URL(endpoint).host}) did not answer; ${submission.submitted} URLs were submitted before.`,
    };
  const { batches } = submission;
  const accepted = allAccepted(batches);
  // Remembers the newest content date submitted, so the next default run sends what changed after it.
  const newest = Math.max(0, ...changed.map((url) => url.lastmod ?? 0));
  if (accepted && input.urls === undefined && changed.length > 0)
    await services.store.settings.set(LAST_SUBMISSION, String(Math.max(newest, Number.isNaN(last) ? 0 : last)));
  return {
    ok: true,
    status: 200,
    body: { submitted: urls.length, accepted, engine: new URL(endpoint).host, batches },
    redirect: '/',
  };
}

/** The owner's tool, limited so that its bearer token cannot be guessed. */
export const indexNotifyRoute = defineWriteRoute({
  route: writeRouteAddresses.indexNotify,
  handle: { schema, action: notifyIndexNow, authorize: { check: authorizeIndexNotify, security: { bearer: [] } }, optionalBody: true },
  docs: {
    summary: 'Submit changed URLs to IndexNow (owner only, bearer token).',
    responses,
    jsonOnly: true,
  },
});
