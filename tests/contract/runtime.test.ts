import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { SERVER_ARGS, SERVER_ENV } from '@/lib/server/node-flags';
import { threadNiceness } from '../support/threads';
import { until } from '../support/until';
import { copyContractBuild, freePort, portFree, ROOT, startSite, type RunningSite } from '../support/site';

/** The Node.js release the `node` dependency brings: what every script of the project runs on. */
const installed = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/node/package.json'), 'utf8')) as { version: string };
const engines = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
const major = (version: string) => Number(/^v?(\d+)/.exec(version)?.[1]);

const GRACE_MS = 4000;

/** The server process under `npm start`: the one child npm's shell was replaced by. */
function serverPid(npmPid: number): number {
  const children = fs
    .readdirSync(`/proc/${npmPid}/task`)
    .flatMap((task) => fs.readFileSync(`/proc/${npmPid}/task/${task}/children`, 'utf8').trim().split(/\s+/))
    .filter(Boolean)
    .map(Number);
  const server = children.find((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('server.ts'));
  if (!server) throw new Error(`no server.ts among npm's children ${children.join(', ')}`);
  return server;
}

/** A GET over `agent`: its status and `Connection` header. */
const get = (url: string, agent: http.Agent) =>
  new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
      })
      .on('error', reject);
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the runtime', () => {
  let site: RunningSite | undefined;
  const copies: string[] = [];
  /** A copy of the contract build for one server (relative to the repository, as Next takes it). */
  const build = () => {
    const copy = copyContractBuild(path.join(ROOT, inject('distDir')), 'runtime');
    copies.push(copy);
    return path.relative(ROOT, copy);
  };
  /** `npm start` on a copy of the contract build, on `port`. */
  const underNpm = (port: number) =>
    startSite({
      contentDir: inject('contentDir'),
      distDir: build(),
      siteUrl: inject('siteUrl'),
      port,
      npmStart: true,
      extraEnv: { SHUTDOWN_GRACE_MS: String(GRACE_MS), PREWARM: '0' },
    });
  afterEach(async () => site?.kill());
  afterAll(() => copies.forEach((copy) => fs.rmSync(copy, { recursive: true, force: true })));

  it('is the Node.js LTS release the project installs, for the tests and the server alike', async () => {
    expect(major(engines)).toBeGreaterThanOrEqual(24);
    expect(process.version).toBe(`v${installed.version}`);
    expect(major(process.version)).toBe(major(engines));
    // An LTS release carries its line's codename (Krypton for 24); a Current release has none.
    expect(process.release.lts).toMatch(/^[A-Z][a-z]+$/);

    site = await underNpm(await freePort());
    // The server names its runtime once, in its first line.
    const named = [...site.output().matchAll(/server on http:\S+ \(Node\.js (v[\d.]+)\)/g)].map((match) => match[1]);
    expect(named).toEqual([`v${installed.version}`]);
    const pid = serverPid(site.process.pid!);
    expect(fs.readlinkSync(`/proc/${pid}/exe`)).toBe(fs.realpathSync(path.join(ROOT, 'node_modules/.bin/node')));
    // With the flags every start of the server gives it (lib/server/node-flags.ts).
    expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(1, -1)).toEqual(SERVER_ARGS);
    // And the environment it gives it, which glibc reads as the process starts.
    const environment = Object.fromEntries(
      fs
        .readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    );
    expect(environment).toMatchObject(SERVER_ENV);
    // Its search thread built its first index before the server listened, then gave way to the thread that answers reads.
    await until(() => threadNiceness(pid).includes(10), 'the search thread at niceness 10');
    expect(os.getPriority(pid)).toBe(0);
  });

  for (const [signal, to] of [
    ['SIGTERM', 'the npm start process'],
    ['SIGINT', "npm start's process group, as a terminal's Ctrl-C"],
  ] as const) {
    it(`stops cleanly on ${signal} to ${to}: requests finish, exit 0, the port is free`, async () => {
      const port = await freePort();
      site = await underNpm(port);
      const npm = site.process;
      const server = serverPid(npm.pid!);
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        npm.once('exit', (code, signalCode) => resolve({ code, signal: signalCode })),
      );
      // A connection the server has accepted (its first request answered, kept alive) carries a request
      // sent right after the signal: the server answers it before it stops.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      expect((await get(`${site.baseUrl}/robots.txt`, agent)).status).toBe(200);
      const sentAt = Date.now();
      if (signal === 'SIGTERM') npm.kill('SIGTERM');
      else process.kill(-npm.pid!, 'SIGINT');
      const inFlight = get(`${site.baseUrl}/blog`, agent);

      expect((await inFlight).status).toBe(200);
      agent.destroy();
      expect(await exited).toEqual({ code: 0, signal: null });
      // Within the shutdown's bound: the grace for requests and again for the services.
      expect(Date.now() - sentAt).toBeLessThan(2 * GRACE_MS);
      await until(() => !alive(server), 'the server process to end', 2000);
      expect(await portFree(port)).toBe(true);
      const output = site.output();
      expect(output).toContain(`lectern: stopping; requests in flight have ${GRACE_MS} ms to finish`);
      expect(output).toContain('lectern: stopped');
      expect(output).not.toMatch(/ERR!|npm error/);
    });
  }
});
