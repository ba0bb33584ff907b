import os from 'node:os';
import { MemoryKvStore, type KvStore, type MessageQueue } from '@fedify/fedify';
import { describe, expect, it } from 'vitest';
import { siteFediverse } from '@/lib/fediverse';
import type { Post } from '@/lib/content';
import { memoryLimiter } from '@/lib/limits/limiter';

/** A post as lib/content gives it, with what the Article is made of. */
const post = (slug: string, title = slug, dateMillis = 500) =>
  ({
    slug,
    title,
    description: `About ${slug}.`,
    tags: ['notes'],
    dateMillis,
    updatedMillis: undefined,
    url: `https://blog.example/blog/${slug}`,
  }) as unknown as Post;

/** What a start of the site queues: each message's activity type and ID (outbox messages straight to an inbox: one follower). */
type Sent = { type: string; id: string; object?: unknown };

/** A start of the site on the shared `kv` with these posts live: resolves with what it queued for followers. */
async function start(kv: KvStore, live: readonly Post[], now = 10_000): Promise<Sent[]> {
  const sent: Sent[] = [];
  const queue: MessageQueue = {
    enqueue: async (message) => {
      const { activityType, activityId, activity } = message as { activityType: string; activityId: string; activity: { object?: unknown } };
      sent.push({ type: activityType.replace(/^.*#/, ''), id: activityId, object: activity.object });
    },
    listen: (_handler, options) => new Promise<void>((resolve) => options?.signal?.addEventListener('abort', () => resolve())),
  };
  const fediverse = siteFediverse({
    stores: { kv, queue, close: () => undefined },
    origin: 'https://blog.example',
    handle: 'blog',
    allowPrivateAddress: false,
    limiter: () => memoryLimiter({ windowScale: 1 }),
    deployment: { trustProxy: 0, clientIpHeader: undefined, platform: false },
    now: () => now,
    posts: () => live,
    profile: () => ({ name: 'A site', summary: 'About it.' }),
    log: { warn: () => undefined, log: () => undefined },
  });
  // A stop waits for what the start sends.
  fediverse.part.start();
  await fediverse.part.stop();
  return sent;
}

const follow = (kv: KvStore) =>
  kv.set(['lectern', 'followers', 'https://remote.example/u/a'], {
    id: 'https://remote.example/u/a',
    inbox: 'https://remote.example/u/a/inbox',
    sharedInbox: null,
  });

describe('a deploy on the fediverse', () => {
  it('sends nothing at the first start (the posts live then are recorded), then an Update of a post whose title changed and a Delete of one removed, once', async () => {
    const kv = new MemoryKvStore();
    await follow(kv);
    expect(await start(kv, [post('kept'), post('edited'), post('removed')], 1000)).toEqual([]);

    const sent = await start(kv, [post('kept'), post('edited', 'A better title')]);
    expect(sent.map(({ type, id }) => ({ type, id }))).toEqual([
      { type: 'Update', id: expect.stringMatching(/^https:\/\/blog\.example\/blog\/edited#update-/) },
      { type: 'Delete', id: expect.stringMatching(/^https:\/\/blog\.example\/blog\/removed#delete-/) },
    ]);
    expect(JSON.stringify(sent[0]!.object)).toContain('A better title');
    expect(sent[1]!.object).toMatchObject({ type: 'Tombstone', id: 'https://blog.example/blog/removed' });

    // The same content again: nothing.
    expect(await start(kv, [post('kept'), post('edited', 'A better title')])).toEqual([]);
  });

  it('sends the Create of a post that went live while the site was on the fediverse but was never queued (a crash), and nothing for one of before', async () => {
    const kv = new MemoryKvStore();
    await follow(kv);
    expect(await start(kv, [post('old', 'old', 500)], 1000)).toEqual([]);
    const sent = await start(kv, [post('missed', 'missed', 5000), post('old', 'old', 500)]);
    expect(sent.map(({ type, id }) => ({ type, id }))).toEqual([{ type: 'Create', id: 'https://blog.example/blog/missed#create' }]);

    // A Delete claimed by a process of this host that died before queueing it: sent by the next start, once.
    const record = (await kv.get<{ hash: string }>(['lectern', 'federated', 'old']))!;
    await kv.set(['lectern', 'federated', 'old'], { hash: record.hash, kind: 'delete', queued: false, by: `${os.hostname()}/2147483646/gone`, at: Date.now() });
    expect((await start(kv, [post('missed', 'missed', 5000)])).map((each) => each.type)).toEqual(['Delete']);
    expect(await start(kv, [post('missed', 'missed', 5000)])).toEqual([]);
  });

  it('sends each change from one of two instances starting together', async () => {
    const kv = new MemoryKvStore();
    await follow(kv);
    await start(kv, [post('edited'), post('removed')], 1000);
    const both = await Promise.all([start(kv, [post('edited', 'New title')]), start(kv, [post('edited', 'New title')])]);
    expect(both.flat().map((sent) => sent.type)).toEqual(['Update', 'Delete']);
  });

  it('sends nothing for a post taken down and brought back (its Delete stands), and an Update when it changes after', async () => {
    const kv = new MemoryKvStore();
    await follow(kv);
    await start(kv, [post('back')], 1000);
    expect((await start(kv, [])).map((sent) => sent.type)).toEqual(['Delete']);
    expect(await start(kv, [post('back')])).toEqual([]);
    expect((await start(kv, [post('back', 'Back, edited')])).map((sent) => sent.type)).toEqual(['Update']);
  });
});
