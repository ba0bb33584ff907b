import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FediversePeer } from '../support/fediverse-peer';
import { copies, deliverySite, LEAD_MS, slowFollowers, type DeliverySite } from '../support/fediverse-delivery';
import { startRedis } from '../support/redis';
import { freePort, type RunningSite } from '../support/site';
import { until } from '../support/until';

/** How many followers' servers, each its own inbox: enough that both instances' queues send some. */
const FOLLOWERS = 12;

// Two instances of the site on one Redis server (the store, and the fediverse's store and queue), one URL.
describe('delivery to the fediverse from two instances on one Redis', () => {
  let site: DeliverySite;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let instances: RunningSite[] = [];
  let peers: FediversePeer[] = [];

  beforeAll(async () => {
    redis = await startRedis();
    site = await deliverySite({ REDIS_URL: redis.url });
    instances = await Promise.all([site.start(), site.start(await freePort())]);
    peers = await slowFollowers(site, FOLLOWERS);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await Promise.all(peers.map((peer) => peer.stop()));
    site?.cleanUp();
    await redis?.stop();
  }, 120_000);

  it("sends each follower's server the Create of a post that goes live once, whichever instance takes each delivery", async () => {
    expect(Date.now()).toBeLessThan(site.dueAt);
    await until(() => copies(peers, 'Create').every((count) => count > 0), "every follower's Create", LEAD_MS + 60_000);
    // Time for a second copy to arrive, were one sent (each inbox answers after 1.5 s).
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(copies(peers, 'Create', /\/blog\/future-post#create$/)).toEqual(peers.map(() => 1));
  }, 120_000);
});
