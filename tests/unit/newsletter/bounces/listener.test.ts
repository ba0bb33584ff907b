import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import nodemailer from 'nodemailer';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startBounceReaders } from '@/lib/newsletter/bounces/readers';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import { hashToken } from '@/lib/services/tokens';
import { parseSettings } from '@/lib/settings';
import { CONFIRMATION_RESEND } from '@/lib/subscribers/links';
import { arf, dsn } from '../../../support/reports';
import { freePort } from '../../../support/site';

const token = 'Abcdefghijklmnopqrstuvwxyz012345';
const verp = `bounces+${token}@blog.example.com`;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listening(env: Record<string, string> = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-bounces-'));
  const port = await freePort();
  const settings = parseSettings({
    DATA_DIR: dataDir,
    BOUNCE_ADDRESS: 'bounces@blog.example.com',
    BOUNCE_SMTP_PORT: String(port),
    SOFT_BOUNCE_LIMIT: '2',
    ...env,
  });
  const store = openSqliteStore(path.join(dataDir, 'lectern.db'));
  const logged: string[] = [];
  const readers = startBounceReaders(settings, store, { log: (line: string) => logged.push(line), warn: (line: string) => logged.push(line) });
  cleanups.push(
    () => fs.rmSync(dataDir, { recursive: true, force: true }),
    () => store.close(),
    async () => {
      readers.stop();
      await readers.drain();
    },
  );
  expect(await readers.listenerPort).toBe(port);
  const client = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  cleanups.push(() => client.close());
  const deliver = (to: string, raw: Buffer) => client.sendMail({ envelope: { from: '', to: [to] }, raw });
  await store.subscribers.subscribe({
    email: 'reader@example.org',
    confirmTokenHash: 'c',
    unsubscribeTokenHash: 'u',
    now: 1,
    resend: CONFIRMATION_RESEND,
    mail: { to: { address: 'reader@example.org' }, subject: 's', text: 't', html: 'h' },
  });
  await store.subscribers.confirm('c', 1, 0);
  await store.bounces.issue([{ tokenHash: hashToken(token), email: 'reader@example.org', slug: 'a-post' }], 1);
  return { store, deliver, logged, port, keptDir: path.join(dataDir, 'bounces-kept') };
}

describe('the bounce listener', () => {
  it('suspends the address a hard bounce names, at once, and logs it without the address', async () => {
    const { store, deliver, logged } = await listening();
    await deliver(verp, dsn({ to: verp, recipient: 'reader@example.org', status: '5.2.0' }));
    expect(await store.newsletter.rejections()).toEqual([expect.objectContaining({ email: 'reader@example.org', suspended: true })]);
    expect(logged).toEqual([expect.stringMatching(/^bounces: hard bounce from a reader of "a-post": suspended \(5\.2\.0/)]);
    expect(logged.join('\n')).not.toContain('reader@example.org');
  });

  it('suspends after the set number of soft bounces, and unsubscribes on a complaint', async () => {
    const { store, deliver } = await listening();
    await deliver(verp, dsn({ to: verp, recipient: 'reader@example.org', status: '4.2.2' }));
    expect(await store.newsletter.rejections()).toEqual([]);
    await deliver(verp, dsn({ to: verp, recipient: 'reader@example.org', status: '4.2.2' }));
    expect(await store.newsletter.rejections()).toEqual([expect.objectContaining({ suspended: true, lastError: expect.stringMatching(/^2 soft bounces/) })]);
    await deliver(verp, arf({ to: verp, verp }));
    expect((await store.subscribers.list())[0]?.status).toBe('unsubscribed');
    expect(await store.bounces.sendCounts()).toEqual({ 'a-post': { hard: 0, soft: 2, complaints: 1 } });
  });

  it('keeps what it cannot match or read, and takes no mail for another domain', async () => {
    const { deliver, keptDir, logged } = await listening();
    await deliver('bounces@blog.example.com', dsn({ to: 'bounces@blog.example.com', recipient: 'x@example.org', status: '5.1.1' }));
    await deliver(verp.replace('Abc', 'Xyz'), dsn({ to: 'bounces@blog.example.com', recipient: 'x@example.org', status: '5.1.1' }));
    await deliver('bounces@blog.example.com', Buffer.from('From: a@example.org\r\nSubject: hello\r\n\r\nHi.\r\n'));
    expect(fs.readdirSync(keptDir)).toHaveLength(3);
    expect(logged).toHaveLength(3);
    await expect(deliver('someone@elsewhere.example', dsn({ to: verp, recipient: 'x@example.org', status: '5.1.1' }))).rejects.toMatchObject({
      responseCode: 550,
    });
  });

  it('keeps no more than BOUNCES_KEPT_MAX_MB of junk: past it a new message is taken and not kept', async () => {
    const { deliver, keptDir, logged } = await listening({ BOUNCES_KEPT_MAX_MB: '1' });
    const junk = Buffer.from(`From: a@example.org\r\nSubject: junk\r\n\r\n${'x'.repeat(300 * 1024)}\r\n`);
    for (let i = 0; i < 5; i++) await deliver('bounces@blog.example.com', junk);
    const kept = fs.readdirSync(keptDir);
    expect(kept).toHaveLength(3);
    expect(kept.reduce((sum, name) => sum + fs.statSync(path.join(keptDir, name)).size, 0)).toBeLessThanOrEqual(1024 * 1024);
    expect(logged.filter((line) => line.includes('not kept'))).toHaveLength(2);
  });

  it('refuses a message over 10 MiB sent without SIZE with 552, holding no more than the limit while it arrives', async () => {
    const { port } = await listening();
    const socket = net.connect(port, '127.0.0.1');
    cleanups.push(() => void socket.destroy());
    let replies = '';
    socket.on('data', (chunk) => (replies += chunk));
    const reply = async (code: string) => {
      await vi.waitFor(() => expect(replies).toMatch(new RegExp(`^${code} `, 'm')), { timeout: 5000 });
      replies = '';
    };
    await reply('220');
    for (const [line, code] of [
      ['EHLO client.example', '250'],
      ['MAIL FROM:<>', '250'],
      ['RCPT TO:<bounces@blog.example.com>', '250'],
      ['DATA', '354'],
    ] as const) {
      socket.write(`${line}\r\n`);
      await reply(code);
    }
    // What is held, not what waits for the collector: a collection before each measure.
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const held = () => (gc(), process.memoryUsage().arrayBuffers);
    const before = held();
    let peak = before;
    const line = Buffer.from(`${'x'.repeat(1022)}\r\n`);
    const block = Buffer.concat(Array.from({ length: 1024 }, () => line));
    // 48 MiB: the listener reads every byte of it and keeps none past 10 MiB.
    for (let i = 0; i < 48; i++) {
      if (!socket.write(block)) await new Promise((resolve) => socket.once('drain', resolve));
      peak = Math.max(peak, held());
    }
    socket.write('.\r\n');
    await reply('552');
    peak = Math.max(peak, held());
    expect(peak - before).toBeLessThan(24 * 1024 * 1024);
  });
});
