import { problem } from '../http/problem';
import { jsonResponse } from '../http/responses';
import { findShared } from '../process-shared';
import type { Services } from '../services';
import { sameSecret } from '../services/tokens';
import { publishDue } from './publish';
import { SCHEDULER_TOKEN } from './scheduler';
import { settings } from '../settings';

/**
 * GET /api/publish: `Authorization: Bearer CRON_SECRET` (what Vercel's cron sends), or the
 * token of lectern's own scheduler, which never leaves the process. Answers what it did.
 * `?regenerate=1` makes every generated page, feed and file anew even when no post went live.
 */
export async function publishResponse(request: Request, services: Pick<Services, 'store' | 'newsletter'>): Promise<Response> {
  const secrets = [settings().publishing.cronSecret, findShared<string>(SCHEDULER_TOKEN)].filter((secret): secret is string => Boolean(secret));
  if (secrets.length === 0) return problem('service-unavailable', 'Set CRON_SECRET to publish scheduled posts from a cron job.', { cache: 'write' });
  const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
  if (!secrets.some((secret) => sameSecret(given, secret)))
    return problem('unauthorized', 'Send Authorization: Bearer with CRON_SECRET.', {
      cache: 'write',
      headers: { 'WWW-Authenticate': 'Bearer realm="publish"' },
    });
  const regenerate = new URL(request.url).searchParams.get('regenerate') === '1';
  return jsonResponse(await publishDue(services, { regenerate }), { cache: 'write' });
}
