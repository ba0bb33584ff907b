import fs from 'node:fs';
import path from 'node:path';
import { Article, type Update } from '@fedify/fedify/vocab';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FediversePeer } from '../support/fediverse-peer';
import { copies, deliverySite, LEAD_MS, slowFollowers, terminate, type DeliverySite } from '../support/fediverse-delivery';
import type { RunningSite } from '../support/site';
import { until } from '../support/until';

/** How many followers' servers, each its own inbox: more than the queue sends at once (4), so a stop leaves some to send. */
const FOLLOWERS = 8;
/** Time for a second copy to arrive, were one sent (each inbox answers after 1.5 s). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 4_000));

// The site's fediverse store and queue in DATA_DIR (SQLite), kept across the restarts of one site.
describe('delivery to the fediverse across restarts and deploys', () => {
  let site: DeliverySite;
  let running: RunningSite | undefined;
  let peers: FediversePeer[] = [];

  beforeAll(async () => {
    site = await deliverySite();
    running = await site.start();
    peers = await slowFollowers(site, FOLLOWERS);
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
    await Promise.all(peers.map((peer) => peer.stop()));
    site?.cleanUp();
  }, 120_000);

  it("a restart (SIGTERM) in the middle of a post's delivery lets the sends on the wire finish, and each follower's server gets the Create once", async () => {
    expect(Date.now()).toBeLessThan(site.dueAt);
    await until(() => copies(peers, 'Create').some((count) => count > 0), 'the Create on the wire', LEAD_MS + 30_000);
    // A clean stop: the sends on the wire were waited for.
    expect(await terminate(running!)).toBe(0);
    const atStop = copies(peers, 'Create');
    expect(atStop.filter((count) => count > 0).length).toBeLessThan(FOLLOWERS);

    running = await site.start();
    await until(() => copies(peers, 'Create').every((count) => count > 0), "every follower's Create", 60_000);
    await settle();
    expect(copies(peers, 'Create', /\/blog\/future-post#create$/)).toEqual(peers.map(() => 1));
  }, 120_000);

  it("a deploy that changes a post's title sends its Update to each follower; a kill (SIGKILL) in the middle sends again at most what was on the wire", async () => {
    expect(await terminate(running!)).toBe(0);
    const file = path.join(site.contentDir, 'posts/alpha-post.md');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('title: Alpha post', 'title: Alpha post, revised'));
    running = await site.start();
    await until(() => copies(peers, 'Update').some((count) => count > 0), 'the Update on the wire', 30_000);
    await running.kill();
    const atKill = copies(peers, 'Update');

    running = await site.start();
    await until(() => copies(peers, 'Update').every((count) => count > 0), "every follower's Update", 60_000);
    await settle();
    const updates = copies(peers, 'Update', /\/blog\/alpha-post#update-/);
    // None lost; a server sent it twice is one whose copy was on the wire at the kill (the queue sends 4 at once).
    expect(updates.every((count) => count === 1 || count === 2)).toBe(true);
    const twice = updates.flatMap((count, index) => (count === 2 ? [index] : []));
    expect(twice.length).toBeLessThanOrEqual(4);
    for (const index of twice) expect(atKill[index]).toBe(1);
    const update = peers[0]!.received.find((entry) => entry.type === 'Update')!.activity as Update;
    const article = await update.getObject();
    expect(article).toBeInstanceOf(Article);
    expect((article as Article).name?.toString()).toBe('Alpha post, revised');
    // The post that went live before is not sent again.
    expect(copies(peers, 'Create')).toEqual(peers.map(() => 1));
  }, 120_000);

  it('a deploy that removes a post sends its Delete to each follower once; a start with nothing changed sends nothing', async () => {
    expect(await terminate(running!)).toBe(0);
    const updates = copies(peers, 'Update');
    fs.rmSync(path.join(site.contentDir, 'posts/gamma-post.md'));
    running = await site.start();
    await until(() => copies(peers, 'Delete').every((count) => count > 0), "every follower's Delete", 60_000);
    await settle();
    expect(copies(peers, 'Delete', /\/blog\/gamma-post#delete-/)).toEqual(peers.map(() => 1));
    const deleted = peers[0]!.arrivals.find((arrival) => arrival.type === 'Delete');
    expect(deleted).toBeDefined();

    expect(await terminate(running)).toBe(0);
    running = await site.start();
    await settle();
    expect(copies(peers, 'Delete')).toEqual(peers.map(() => 1));
    expect(copies(peers, 'Update')).toEqual(updates);
    expect(copies(peers, 'Create')).toEqual(peers.map(() => 1));
  }, 120_000);
});
