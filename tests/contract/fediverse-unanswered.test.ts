import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverySite, type DeliverySite } from '../support/fediverse-delivery';
import { startFediversePeer, type FediversePeer } from '../support/fediverse-peer';
import type { RunningSite } from '../support/site';
import { until } from '../support/until';

/** More servers that never answer than the queue sends at once (4). */
const HUNG = 6;
/** FEDIVERSE_SEND_TIMEOUT_SECONDS for this site. */
const SEND_TIMEOUT_S = 1;

// A follow is answered with an Accept, sent through the queue to the follower's inbox like any delivery.
describe('delivery to fediverse servers that take the connection and never answer', () => {
  let site: DeliverySite;
  let running: RunningSite | undefined;
  const peers: FediversePeer[] = [];

  beforeAll(async () => {
    site = await deliverySite({ FEDIVERSE_SEND_TIMEOUT_SECONDS: String(SEND_TIMEOUT_S) });
    running = await site.start();
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
    await Promise.all(peers.map((peer) => peer.stop()));
    site?.cleanUp();
  }, 60_000);

  it("gives up waiting on each after FEDIVERSE_SEND_TIMEOUT_SECONDS, and the other followers' deliveries go on", async () => {
    const hung = await Promise.all(Array.from({ length: HUNG }, () => startFediversePeer({ inboxUnanswered: true })));
    peers.push(...hung);
    for (const peer of hung) await peer.follow(await peer.lookup(`blog@${site.host}`));
    await until(() => hung.every((peer) => peer.arrivals.some((arrival) => arrival.type === 'Accept')), "every hung server's Accept sent", 30_000);

    // A reader on a server that answers follows after them: the hung ones hold no send slot for good.
    const reader = await startFediversePeer();
    peers.push(reader);
    await reader.follow(await reader.lookup(`blog@${site.host}`));
    await until(() => reader.received.some((entry) => entry.type === 'Accept'), "the answering server's Accept", 20_000);

    // Each hung server saw the site close the connection it never answered, after about the timeout.
    await until(() => hung.every((peer) => peer.abandoned.length > 0), 'every unanswered send abandoned', 20_000);
    for (const peer of hung) {
      expect(peer.abandoned[0]!.type).toBe('Accept');
      expect(peer.abandoned[0]!.waitedMs).toBeGreaterThanOrEqual(SEND_TIMEOUT_S * 1000 - 100);
      expect(peer.abandoned[0]!.waitedMs).toBeLessThan(SEND_TIMEOUT_S * 1000 + 10_000);
    }
  }, 90_000);
});
