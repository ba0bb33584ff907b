import { problem } from '../http/problem';
import { admit } from '../limits/admission';
import { jsonResponse } from '../http/responses';
import { findShared } from '../process-shared';
import type { Services } from '../runtime';
import { sameSecret } from '../services/tokens';
import { publishDue } from './publish';
import { SCHEDULER_TOKEN } from './scheduler';
import { settings } from '../settings';

/**
 * GET /api/publish: `Authorization: Bearer CRON_SECRET` (what Vercel's cron sends), or the
 * token of lectern's own scheduler, which never leaves the process. Answers what it did.
 * `?regenerate=1` makes every generated page, feed and file anew even when no post went live.
 * Every call from outside is limited per client address like a write route (lib/limits/table.ts:
 * `publish`), before the token is looked at, so guessing it is throttled (429 with RateLimit
 * headers); the scheduler's own calls (in the process, from no client address) are not counted.
 */
export async function publishResponse(request: Request, services: Pick<Services, 'store' | 'newsletter' | 'limiter' | 'mail'>): Promise<Response> {
  const own = findShared<string>(SCHEDULER_TOKEN);
  const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
  let limitHeaders: Record<string, string> = {};
  if (!own || !sameSecret(given, own)) {
    const admission = await admit(request, 'publish', services.limiter, settings().deployment);
    limitHeaders = admission.headers;
    if (!admission.ok)
      return problem(admission.refusal.problem, admission.refusal.detail, { headers: { ...limitHeaders, ...admission.refusal.headers }, cache: 'write' });
  }
  const secrets = [settings().publishing.cronSecret, own].filter((secret): secret is string => Boolean(secret));
  if (secrets.length === 0)
    return problem('service-unavailable', 'Set CRON_SECRET to publish scheduled posts from a cron job.', { cache: 'write', headers: limitHeaders });
  if (!secrets.some((secret) => sameSecret(given, secret)))
    return problem('unauthorized', 'Send Authorization: Bearer with CRON_SECRET.', {
      cache: 'write',
      headers: { ...limitHeaders, 'WWW-Authenticate': 'Bearer realm="publish"' },
    });
  const regenerate = new URL(request.url).searchParams.get('regenerate') === '1';
  return jsonResponse(await publishDue(services, { regenerate }), { cache: 'write', headers: limitHeaders });
}
