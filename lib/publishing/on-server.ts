import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { clock } from '../clock';
import { builtList } from '../content/published-set';
import { shared } from '../process-shared';
import { withLoopback } from '../server/loopback';
import type { Published } from './publish';
import { createScheduler, SCHEDULER_TOKEN, type Scheduler } from './scheduler';

type Render = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * lectern's server's scheduler: at start and at each post's time, GET /api/publish from Next
 * (`render`) over a private loopback port, with a token that never leaves the process (Next's
 * revalidation runs only inside a request Next handles), then `changed` when it made Next's
 * outputs anew (the read cache is cleared). Resolves once the site is up to the clock; undefined where no build wrote its list.
 */
export async function startScheduler(render: Render, changed: () => void): Promise<Scheduler | undefined> {
  const list = builtList();
  if (!list) return undefined;
  const token = shared(SCHEDULER_TOKEN, () => randomBytes(32).toString('base64url'));
  const scheduler = createScheduler({
    clock,
    dates: list.dates,
    onChange: async () => {
      const { status, body } = await withLoopback(render, (get) => get('/api/publish', { authorization: `Bearer ${token}` }));
      if (status !== 200) throw new Error(`/api/publish answered ${status}: ${body.slice(0, 200)}`);
      const published = JSON.parse(body) as Published;
      if (published.revalidated) changed();
      // Tried again shortly (the posts are live already; only their announcement waits).
      if (!published.claimed) throw new Error('the posts that went live could not be claimed');
    },
  });
  await scheduler.start();
  return scheduler;
}
