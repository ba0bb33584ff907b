import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { freePort } from './site';

/**
 * The Redis server `npm test` starts for the suite (scripts/test.sh). Each test
 * file uses its own database number, so files running in parallel never see
 * each other's keys.
 */
export function testRedisUrl(db: number): string {
  const url = process.env.REDIS_TEST_URL;
  if (!url) throw new Error('REDIS_TEST_URL is not set: run the tests with `npm test`, which starts a Redis server for them');
  return `${url.replace(/\/\d*$/, '')}/${db}`;
}

export async function flushRedis(url: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  await client.flushDb();
  await client.quit();
}

/**
 * A Redis server of a test's own, to stop and start at will (`port`: start again where a stopped one
 * was). With `dir`, what it holds is written to an append-only file there and kept when it stops, so
 * one started again with the same `dir` has it back (a restart, not a new server).
 */
export async function startRedis(
  options: { port?: number; dir?: string } = {},
): Promise<{ url: string; port: number; stop: () => Promise<void>; pause: () => void; resume: () => void; process: ChildProcess }> {
  const port = options.port ?? (await freePort());
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-redis-'));
  const persistence = options.dir ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    try {
      const client = createClient({ url });
      await client.connect();
      await client.quit();
      break;
    } catch (error) {
      if (attempt > 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    port,
    process: child,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    stop: () =>
      new Promise((resolve) => {
        // Stopped already (a signal leaves exitCode null): nothing to wait for.
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => {
          if (!options.dir) fs.rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        child.kill('SIGCONT');
        child.kill('SIGKILL');
      }),
  };
}
