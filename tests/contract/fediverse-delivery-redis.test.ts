import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FediversePeer } from '../support/fediverse-peer';
import { copies, deliverySite, slowFollowers, terminate, type DeliverySite } from '../support/fediverse-delivery';
import { startRedis } from '../support/redis';
import { freePort, type RunningSite } from '../support/site';
import { until } from '../support/until';

/** How many followers' servers, each its own inbox: enough that both instances' queues send some. */
const FOLLOWERS = 12;

// Two instances of the site on one Redis server (the store, and the fediverse's store and queue), one URL.
// No post goes live during the test (the fixture's future-post is an hour ahead): the activity is a deploy's Update.
describe('delivery to the fediverse from two instances on one Redis', () => {
  let site: DeliverySite;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let instances: RunningSite[] = [];
  let peers: FediversePeer[] = [];
  const startBoth = async () => Promise.all([site.start(), site.start(await freePort())]);

  beforeAll(async () => {
    redis = await startRedis();
    site = await deliverySite({ REDIS_URL: redis.url }, 3_600_000);
    instances = await startBoth();
    peers = await slowFollowers(site, FOLLOWERS).catch((error: unknown) => {
      throw new Error(`the follows failed: ${String(error)}\n${instances.map((instance) => instance.output()).join('\n---\n')}`);
    });
  }, 180_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await Promise.all(peers.map((peer) => peer.stop()));
    site?.cleanUp();
    await redis?.stop();
  });

  it("a deploy of both instances at once sends each follower's server one Update of the edited post, from one claim", async () => {
    expect(await Promise.all(instances.map((instance) => terminate(instance)))).toEqual([0, 0]);
    const file = path.join(site.contentDir, 'posts/alpha-post.md');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('title: Alpha post', 'title: Alpha post, revised'));
    instances = await startBoth();
    await until(() => copies(peers, 'Update').every((count) => count > 0), "every follower's Update", 90_000);
    // Time for a second copy to arrive, were one sent (each inbox answers after 1.5 s).
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(copies(peers, 'Update', /\/blog\/alpha-post#update-/)).toEqual(peers.map(() => 1));
    // One instance claimed the Update and queued it.
    const queued = instances.map(
      (instance) =>
        instance
          .output()
          .split('\n')
          .filter((line) => /alpha-post#update-.* queued for its followers/.test(line)).length,
    );
    expect(queued.sort()).toEqual([0, 1]);
    expect(copies(peers, 'Create')).toEqual(peers.map(() => 0));
  }, 180_000);
});
