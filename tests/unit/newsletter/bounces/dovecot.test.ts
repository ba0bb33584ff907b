import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBounceReaders } from '@/lib/newsletter/bounces/readers';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import type { Store } from '@/lib/services/store/types';
import { hashToken } from '@/lib/services/tokens';
import { parseSettings } from '@/lib/settings';
import { CONFIRMATION_RESEND } from '@/lib/subscribers/links';
import { startDovecot, type TestDovecot } from '../../../support/dovecot';
import { arf, dsn } from '../../../support/reports';
import { until } from '../../../support/until';

/**
 * The IMAP road for what comes back (BOUNCE_IMAP_URL), against a real Dovecot (Debian's, an
 * instance of the test's own on loopback): a bounce, a complaint and a message that is neither are
 * put in the mailbox; lectern's poller reads them, suspends and unsubscribes, and flags each one
 * (\Seen; the one it could not act on also `lectern-kept`, left for a person).
 */
const BOUNCE_ADDRESS = 'bounces@blog.example.com';
const bounced = { email: 'bounced@example.org', token: 'Bouncedbouncedbouncedbounced0123' };
const complained = { email: 'complained@example.org', token: 'Complainedcomplainedcomplained01' };
const verp = (token: string) => `bounces+${token}@blog.example.com`;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-dovecot-test-'));
const cleanups: (() => Promise<void> | void)[] = [];
let dovecot: TestDovecot;
let store: Store;

beforeAll(async () => {
  dovecot = await startDovecot();
  cleanups.push(() => dovecot.stop());
  store = openSqliteStore(path.join(tmp, 'lectern.db'));
  cleanups.push(() => store.close());
  for (const { email, token } of [bounced, complained]) {
    await store.subscribers.subscribe({
      email,
      confirmTokenHash: `c-${email}`,
      unsubscribeTokenHash: `u-${email}`,
      now: 1,
      resend: CONFIRMATION_RESEND,
      mail: { to: { address: email }, subject: 's', text: 't', html: 'h' },
    });
    await store.subscribers.confirm(`c-${email}`, 1, 0);
    await store.bounces.issue([{ tokenHash: hashToken(token), email, slug: 'a-post' }], 1);
  }
}, 60_000);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A client of the test's own on the same mailbox, to put messages in and read their flags. */
async function mailbox<T>(work: (client: ImapFlow) => Promise<T>): Promise<T> {
  const client = new ImapFlow({ host: '127.0.0.1', port: dovecot.port, secure: false, auth: { user: dovecot.user, pass: dovecot.password }, logger: false });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.logout();
  }
}

/** Each message's flags by subject, without \Recent (which says only which session saw it first). */
async function flags(): Promise<Record<string, string[]>> {
  return mailbox(async (client) => {
    const lock = await client.getMailboxLock('INBOX');
    try {
      const bySubject: Record<string, string[]> = {};
      for await (const message of client.fetch('1:*', { envelope: true, flags: true }))
        bySubject[message.envelope?.subject ?? ''] = [...(message.flags ?? [])].filter((flag) => flag !== '\\Recent').sort();
      return bySubject;
    } finally {
      lock.release();
    }
  });
}

describe('the IMAP mailbox of bounces, on a real Dovecot', () => {
  it('reads a bounce and a complaint put in the mailbox, suspends and unsubscribes, and flags each message, keeping what it cannot act on', async () => {
    await mailbox(async (client) => {
      await client.append('INBOX', dsn({ to: verp(bounced.token), recipient: bounced.email, status: '5.1.1' }));
      await client.append('INBOX', arf({ to: BOUNCE_ADDRESS, verp: verp(complained.token) }));
      await client.append('INBOX', Buffer.from(`From: someone@example.org\r\nTo: ${BOUNCE_ADDRESS}\r\nSubject: Hello there\r\n\r\nJust a note.\r\n`));
    });
    expect(Object.values(await flags())).toEqual([[], [], []]);

    const logged: string[] = [];
    const settings = parseSettings({ DATA_DIR: tmp, BOUNCE_ADDRESS, BOUNCE_IMAP_URL: dovecot.url(), BOUNCE_IMAP_POLL_SECONDS: '3600' });
    const readers = startBounceReaders(settings, store, { log: (line: string) => logged.push(line), warn: (line: string) => logged.push(line) });
    cleanups.push(async () => {
      readers.stop();
      await readers.drain();
    });
    await until(async () => Object.values(await flags()).every((set) => set.includes('\\Seen')), `the poller to flag all three messages\n${dovecot.log()}`);

    expect(await store.newsletter.rejections()).toEqual([expect.objectContaining({ email: bounced.email, suspended: true })]);
    const statuses = Object.fromEntries((await store.subscribers.list()).map((subscriber) => [subscriber.email, subscriber.status]));
    expect(statuses[complained.email]).toBe('unsubscribed');
    expect(await store.bounces.sendCounts()).toEqual({ 'a-post': { hard: 1, soft: 0, complaints: 1 } });
    const flagged = await flags();
    expect(flagged['Hello there']).toEqual(['\\Seen', 'lectern-kept']);
    expect(
      Object.entries(flagged)
        .filter(([subject]) => subject !== 'Hello there')
        .map(([, set]) => set),
    ).toEqual([['\\Seen'], ['\\Seen']]);
    expect(logged).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^bounces: hard bounce from a reader of "a-post": suspended/),
        expect.stringMatching(/^bounces: complaint from a reader of "a-post"/),
        expect.stringMatching(/^bounces: .*kept/),
      ]),
    );
  });
});
