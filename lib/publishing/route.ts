import { problem } from '../http/problem';
import { jsonResponse } from '../http/responses';
import { findShared } from '../process-shared';
import { sameSecret } from '../services/tokens';
import { publishDue } from './publish';
import { SCHEDULER_TOKEN } from './scheduler';
import { settings } from '../settings';

/**
 * GET /api/publish: `Authorization: Bearer CRON_SECRET` (what Vercel's cron sends), or the
 * token of lectern's own scheduler, which never leaves the process. Answers what it did.
 */
export async function publishResponse(request: Request): Promise<Response> {
  const secrets = [settings().publishing.cronSecret, findShared<string>(SCHEDULER_TOKEN)].filter((secret): secret is string => Boolean(secret));
  if (secrets.length === 0) return problem('service-unavailable', 'Set CRON_SECRET to publish scheduled posts from a cron job.', { cache: 'write' });
  const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
  if (!secrets.some((secret) => sameSecret(given, secret)))
    return problem('unauthorized', 'Send Authorization: Bearer with CRON_SECRET.', {
      cache: 'write',
      headers: { 'WWW-Authenticate': 'Bearer realm="publish"' },
    });
  return jsonResponse(await publishDue(), { cache: 'write' });
}
