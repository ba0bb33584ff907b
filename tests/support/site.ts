import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SERVER_ARGS, SERVER_ENV } from '@/lib/server/node-flags';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const FIXTURE_CONTENT = path.join(ROOT, 'tests/fixtures/content');

/** A free TCP port on loopback, chosen by the kernel. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether nothing listens on the port: a server of ours can bind it. */
export function portFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}\n${output}`))));
  });
}

export type SiteEnv = { contentDir: string; distDir: string; siteUrl: string; extraEnv?: Record<string, string> };

function siteEnv({ contentDir, distDir, siteUrl, extraEnv }: SiteEnv): NodeJS.ProcessEnv {
  return { ...process.env, CONTENT_DIR: contentDir, NEXT_DIST_DIR: distDir, SITE_URL: siteUrl, NEXT_TELEMETRY_DISABLED: '1', ...extraEnv };
}

/** A copy of a build folder, without Next's build cache, for a server of a test's own (named after `label`, under the repository). */
export function copyContractBuild(distDir: string, label: string): string {
  const copy = fs.mkdtempSync(path.join(ROOT, `.next-${label}-`));
  fs.cpSync(distDir, copy, { recursive: true, filter: (source) => path.relative(distDir, source) !== 'cache' });
  return copy;
}

/** `next build` of a content folder into its own dist dir. */
export function buildSite(site: SiteEnv): Promise<void> {
  return run(process.execPath, [path.join(ROOT, 'node_modules/next/dist/bin/next'), 'build'], siteEnv(site));
}

export type RunningSite = {
  baseUrl: string;
  dataDir: string;
  process: ChildProcess;
  stop: () => Promise<void>;
  kill: () => Promise<void>;
  output: () => string;
};

/** How to kill each server started here and not known to have ended: all are killed when the test process exits. */
const runningServers = new Set<() => void>();
process.once('exit', () => {
  for (const kill of runningServers) kill();
});

/**
 * Starts lectern's server (what `npm start` runs) and waits until it answers;
 * with `nextStart`, Next's own server (`next start`) on the same build instead; with `npmStart`,
 * `npm start` itself, in a process group of its own (as a terminal or a process manager runs it).
 */
export async function startSite(site: SiteEnv & { port: number; host?: string; nextStart?: boolean; npmStart?: boolean }): Promise<RunningSite> {
  const host = site.host ?? '127.0.0.1';
  // Each server keeps its store and mail outbox in a folder of its own unless a test shares one.
  const dataDir = site.extraEnv?.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-data-'));
  // The server itself, with tsx as a loader: the tsx CLI would run it in a child of its own,
  // which a SIGKILL of the CLI leaves running.
  const args = site.nextStart
    ? [path.join(ROOT, 'node_modules/next/dist/bin/next'), 'start', '--port', String(site.port), '--hostname', host]
    : [...SERVER_ARGS];
  const [command, commandArgs] = site.npmStart ? ['npm', ['start']] : [process.execPath, args];
  const child = spawn(command, commandArgs, {
    cwd: ROOT,
    env: { ...SERVER_ENV, DATA_DIR: dataDir, ...siteEnv(site), PORT: String(site.port), HOSTNAME: host, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: site.npmStart ?? false,
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Under `npm start` the server is npm's child, in the process group npm leads: a SIGKILL of npm
  // alone would leave the server running, orphaned, for the rest of the test run.
  const kill = () => {
    if (!site.npmStart) return void child.kill('SIGKILL');
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };
  // A server the test did not stop (it failed first, or never stopped it) ends with the test process: an
  // orphan would keep running, and taking CPU, for the rest of the test run.
  runningServers.add(kill);
  child.once('exit', () => {
    if (!site.npmStart) runningServers.delete(kill);
  });
  const baseUrl = `http://${host}:${site.port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}\n${output}`);
    try {
      const response = await fetch(`${baseUrl}/api/blog`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      kill();
      throw new Error(`server did not start within 60 s\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    baseUrl,
    dataDir,
    process: child,
    output: () => output,
    kill: async () => {
      // The group also when npm has exited: a server it started may still be running.
      if (site.npmStart || (child.exitCode === null && child.signalCode === null)) kill();
      await exited;
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      // A server that does not stop within five seconds is killed, so no test leaves one behind.
      const timer = setTimeout(kill, 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
