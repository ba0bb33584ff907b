import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { startFediversePeer, type FediversePeer } from './fediverse-peer';
import { copyContractBuild, freePort, ROOT, startSite, type RunningSite } from './site';
import { until } from './until';

// A date without a time is midnight in the site's time zone: the fixture's is America/New_York (UTC-5 in January).
const DUE = Date.parse('2999-01-01T00:00:00-05:00');
/** Room for a slow start and the follows before the fixture's future-post goes live. */
export const LEAD_MS = 60_000;

/** Slow followers' servers: each inbox POST is answered this long after it arrives, so deliveries are on the wire when the site stops. */
export const INBOX_DELAY_MS = 1_500;

/**
 * A site for the delivery tests (tests/contract/fediverse-delivery*.test.ts): a copy of the contract
 * build and of the fixture content (a deploy edits the copy), on one URL and one DATA_DIR across
 * restarts, its clock set so that future-post goes live LEAD_MS after its first start.
 */
export type DeliverySite = {
  url: string;
  host: string;
  contentDir: string;
  dataDir: string;
  /** Starts an instance (`port`: another instance on the same URL and stores); resolves once it answers. */
  start(port?: number): Promise<RunningSite>;
  /** When future-post goes live, on this machine's clock (LEAD_MS after the first start). */
  readonly dueAt: number;
  cleanUp(): void;
};

export async function deliverySite(env: Record<string, string> = {}, leadMs = LEAD_MS): Promise<DeliverySite> {
  const build = copyContractBuild(path.join(ROOT, inject('distDir')), 'delivery');
  const contentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-content-'));
  fs.cpSync(inject('contentDir'), contentDir, { recursive: true });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-data-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Set at the first start (the instances' start is slow on a busy machine), the same for every later one.
  let dueAt: number | undefined;
  return {
    url,
    host: `127.0.0.1:${port}`,
    contentDir,
    dataDir,
    get dueAt() {
      return dueAt ?? Date.now() + leadMs;
    },
    start: (other) => {
      dueAt ??= Date.now() + leadMs;
      return startSite({
        contentDir,
        distDir: path.relative(ROOT, build),
        siteUrl: url,
        port: other ?? port,
        extraEnv: {
          DATA_DIR: dataDir,
          LECTERN_CLOCK_OFFSET_MS: String(DUE - dueAt),
          FEDIVERSE_HANDLE: 'blog',
          FEDIVERSE_LOOPBACK: '1',
          PREWARM: '0',
          // The contract build's settings (global-setup.ts).
          POSTS_PER_PAGE: '1',
          PRERENDER_POSTS: '2',
          ...env,
        },
      });
    },
    cleanUp() {
      for (const dir of [build, contentDir, dataDir]) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `count` slow followers' servers, each following the site (each its own shared inbox); resolves once every follow is accepted. */
export async function slowFollowers(site: DeliverySite, count: number): Promise<FediversePeer[]> {
  const peers = await Promise.all(Array.from({ length: count }, () => startFediversePeer({ inboxDelayMs: INBOX_DELAY_MS })));
  await Promise.all(peers.map(async (peer) => peer.follow(await peer.lookup(`blog@${site.host}`))));
  await until(() => peers.every((peer) => peer.received.some((entry) => entry.type === 'Accept')), 'every follow accepted', 30_000);
  return peers;
}

/** How many copies of activities of `type` (and ID matching `id`) reached each peer's inboxes, in the peers' order. */
export const copies = (peers: readonly FediversePeer[], type: string, id: RegExp = /./) =>
  peers.map((peer) => peer.arrivals.filter((arrival) => arrival.type === type && id.test(arrival.id ?? '')).length);

/** Stops an instance with SIGTERM, as a process manager does, and waits for it to exit (killed after 20 s); resolves with its exit code. */
export async function terminate(running: RunningSite): Promise<number | null> {
  const exited = new Promise<void>((resolve) => running.process.once('exit', () => resolve()));
  if (running.process.exitCode === null && running.process.signalCode === null) running.process.kill('SIGTERM');
  const timer = setTimeout(() => void running.kill(), 20_000);
  await exited;
  clearTimeout(timer);
  return running.process.exitCode;
}
