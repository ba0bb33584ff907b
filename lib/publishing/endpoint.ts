import { after } from 'next/server';
import { clock } from '../runtime/site';
import { describeError } from '../log';
import { problem } from '../http/problem';
import { admit } from '../limits/admission';
import { jsonResponse } from '../http/responses';
import { sendSiteBatches } from '../newsletter';
import { findShared } from '../process-shared';
import type { Services } from '../runtime';
import { prepareSearchIndex, refreshSearchIndex } from '../search/site';
import { sameSecret } from '../services/tokens';
import type { Settings } from '../settings';
import { queueDueReminders } from '../bookings/reminders';
import { CRON_DELIVERY_BUDGET_MS } from '../fediverse/platform';
import { postsChanged, revalidateOutputs, type PostsChanged } from './posts-changed';
import { SCHEDULER_TOKEN } from './scheduler';

export type Published = PostsChanged & {
  /** On a platform, how many bookings' reminders this call queued. */
  reminders?: number;
};

type PublishServices = Pick<Services, 'store' | 'newsletter' | 'limiter' | 'mail'> & Partial<Pick<Services, 'fediverse'>>;
type PublishSettings = Pick<Settings, 'deployment' | 'publishing' | 'indexNow' | 'newsletter' | 'site'>;

/**
 * GET /api/publish. With `Authorization: Bearer CRON_SECRET` (what Vercel's cron sends): the
 * published set is brought up to the clock (lib/publishing/posts-changed.ts, with this host's
 * reactions: Next's revalidation here, this process's search index, and on a platform a batch of the
 * newsletter and the bookings' due reminders), and the answer says what was done. With the token of
 * lectern's own scheduler, which never leaves the process: only the first reaction, Next's
 * revalidation, which works only inside a request Next handles (the scheduler runs the others
 * itself, lib/publishing/on-server.ts). Every call from outside is limited per client address like
 * a write route (lib/limits/table.ts: `publish`), before the token is looked at, so guessing it is
 * throttled (429 with RateLimit headers); the scheduler's own calls are not counted.
 */
export async function publishResponse(request: Request, services: PublishServices, settings: PublishSettings): Promise<Response> {
  const own = findShared<string>(SCHEDULER_TOKEN);
  const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
  if (own && sameSecret(given, own)) {
    revalidateOutputs();
    return jsonResponse({ revalidated: true }, { cache: 'write' });
  }
  const admission = await admit(request, 'publish', services.limiter, settings.deployment);
  const limitHeaders = admission.headers;
  if (!admission.ok)
    return problem(admission.refusal.problem, admission.refusal.detail, { headers: { ...limitHeaders, ...admission.refusal.headers }, cache: 'write' });
  const secret = settings.publishing.cronSecret;
  if (!secret) return problem('service-unavailable', 'Set CRON_SECRET to publish scheduled posts from a cron job.', { cache: 'write', headers: limitHeaders });
  if (!sameSecret(given, secret))
    return problem('unauthorized', 'Send Authorization: Bearer with CRON_SECRET.', {
      cache: 'write',
      headers: { ...limitHeaders, 'WWW-Authenticate': 'Bearer realm="publish"' },
    });
  const regenerate = new URL(request.url).searchParams.get('regenerate') === '1';
  return jsonResponse(await publishFromCron(services, settings, regenerate), { cache: 'write', headers: limitHeaders });
}

/**
 * A cron call's work. Where only Next runs lectern (a platform, `next start`): on a platform an
 * instance may live only for this request, so the search index of the posts live now is built before
 * the answer, a batch of the newsletter goes out within the call, the bookings' due reminders are
 * queued, and a `Create` of each post that went live is queued for its followers on the fediverse,
 * whose queue is worked through after the answer (no process of lectern's runs between requests to
 * do any of it); elsewhere the index starts anew in slices and the newsletter's sender, which runs
 * in the process, looks by itself.
 */
async function publishFromCron(services: PublishServices, settings: PublishSettings, regenerate: boolean): Promise<Published> {
  const platform = settings.deployment.platform;
  const fediverse = platform ? services.fediverse : undefined;
  const published: Published = await postsChanged(
    {
      revalidate: async () => revalidateOutputs(),
      refreshSearch: () => (platform ? prepareSearchIndex(() => undefined) : refreshSearchIndex()),
      claims: () => services.store.settings,
      indexNow: settings,
      newsletter: async () => (platform ? sendSiteBatches(services.newsletter, settings.newsletter) : undefined),
      fediverse: fediverse && ((slugs) => fediverse.deliver(slugs)),
    },
    { now: clock(), regenerate },
  );
  // The fediverse's queue (what this call queued, and what earlier ones left: retries now due, a pass
  // cut short) is worked through after the answer, until it is idle or the budget is spent.
  if (fediverse) after(async () => void (await fediverse.work(CRON_DELIVERY_BUDGET_MS)));
  if (!platform) return published;
  try {
    return { ...published, reminders: await queueDueReminders(services.store, clock(), () => services.mail.sendQueued()) };
  } catch (error) {
    console.warn(`bookings: reminders wait for the next cron call (${describeError(error)})`);
    return published;
  }
}
