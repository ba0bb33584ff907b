import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedisStore } from '@/lib/services/store/redis';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import type { Store } from '@/lib/services/store/types';
import { CONFIRMATION_RESEND } from '@/lib/subscribers/links';
import { flushRedis, testRedisUrl } from '../../support/redis';
import { ROOT } from '../../support/site';

const REDIS_DB = 6;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-export-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** `npm run subscribers:csv -- …` as the owner runs it: the script under tsx, with the server's store settings. */
function exportCsv(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/export-subscribers.ts', ...args], {
      cwd: ROOT,
      env: { ...process.env, REDIS_URL: '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** One subscriber in each state. */
async function fill(store: Store): Promise<void> {
  const mail = { to: { address: 'x@example.com' }, subject: 's', text: 't', html: 'h' };
  for (const [email, now] of [
    ['pending@example.com', 1000],
    ['confirmed@example.com', 2000],
    ['left@example.com', 3000],
    ['gone@example.com', 3500],
  ] as const) {
    await store.subscribers.subscribe({ email, confirmTokenHash: `c-${email}`, unsubscribeTokenHash: `u-${email}`, now, resend: CONFIRMATION_RESEND, mail });
  }
  await store.subscribers.confirm('c-confirmed@example.com', 4000, 0);
  await store.subscribers.confirm('c-left@example.com', 4000, 0);
  await store.subscribers.unsubscribe('u-left@example.com', 5000);
  await store.subscribers.confirm('c-gone@example.com', 4000, 0);
  await store.bounces.issue([{ tokenHash: 'b-gone', email: 'gone@example.com', slug: 'post' }], 5000);
  await store.bounces.record({
    tokenHash: 'b-gone',
    reportId: 'r',
    kind: 'hard',
    detail: '5.2.0 mailbox disabled',
    now: 6000,
    soft: { limit: 3, windowMs: 1000 },
  });
}

const emails = (csv: string) =>
  csv
    .trim()
    .split('\r\n')
    .slice(1)
    .map((line) => line.split(',')[0]);

const backends: { name: string; env: () => Promise<Record<string, string>> }[] = [
  {
    name: 'SQLite',
    env: async () => {
      const dataDir = path.join(tmp, 'data');
      const store = openSqliteStore(path.join(dataDir, 'lectern.db'));
      await fill(store);
      await store.close();
      return { DATA_DIR: dataDir };
    },
  },
  {
    name: 'Redis',
    env: async () => {
      const url = testRedisUrl(REDIS_DB);
      await flushRedis(url);
      const client = createClient({ url });
      await client.connect();
      await fill(openRedisStore({ eval: (script, keys, args) => client.eval(script, { keys, arguments: args }) }, async () => undefined));
      await client.quit();
      return { REDIS_URL: url, DATA_DIR: path.join(tmp, 'unused') };
    },
  },
];

describe.each(backends)('npm run subscribers:csv on $name', ({ env: prepare }) => {
  let env: Record<string, string>;
  beforeAll(async () => {
    env = await prepare();
  });

  it('exports only confirmed subscribers by default', async () => {
    const { code, stdout } = await exportCsv([], env);
    expect(code).toBe(0);
    expect(stdout.split('\r\n')[0]).toBe('email,name,status,reason,subscribed_at,confirmed_at');
    expect(emails(stdout)).toEqual(['confirmed@example.com', 'gone@example.com']);
  });

  it('shows an address suspended by a hard bounce as suspended, with the reason', async () => {
    const { stdout } = await exportCsv([], env);
    expect(stdout.split('\r\n').find((row) => row.startsWith('gone@'))).toMatch(/^gone@example\.com,,suspended,hard bounce: 5\.2\.0 mailbox disabled,/);
  });

  it('exports everyone with --all, and chosen states with --status=', async () => {
    expect(emails((await exportCsv(['--all'], env)).stdout)).toEqual(['pending@example.com', 'confirmed@example.com', 'left@example.com', 'gone@example.com']);
    expect(emails((await exportCsv(['--status=pending,unsubscribed'], env)).stdout)).toEqual(['pending@example.com', 'left@example.com']);
  });
});

describe('npm run subscribers:csv arguments', () => {
  it('refuses an unknown one with the usage, writing no CSV', async () => {
    for (const args of [['--status=gone'], ['--everyone']]) {
      const { code, stdout, stderr } = await exportCsv(args, { DATA_DIR: path.join(tmp, 'unused') });
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/usage: npm run subscribers:csv/);
    }
  });
});
