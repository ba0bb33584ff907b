import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '@/lib/services/store/sqlite-database';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parseSettings } from '@/lib/settings';
import { createTransport, type MailTransport } from '@/lib/services/mail/transport';
import { backoffMs, createMailWorker as createIdleMailWorker, type MailWorker } from '@/lib/services/mail/worker';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import { verpToken } from '@/lib/services/mail/envelope';
import { hashToken } from '@/lib/services/tokens';
import type { OutgoingMail, Store } from '@/lib/services/store/types';
import { fakeTime } from '../../../support/fake-time';
import { startSmtp } from '../../../support/smtp';
import { until } from '../../../support/until';

const smtp = await startSmtp();
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-worker-'));
afterAll(async () => {
  await smtp.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

const opened: { store: Store; worker?: MailWorker }[] = [];
afterEach(async () => {
  for (const { store, worker } of opened.splice(0)) {
    worker?.stop();
    await worker?.drain();
    await store.close();
  }
});

function newStore() {
  const file = path.join(folder, `${randomUUID()}.db`);
  const store = openSqliteStore(file);
  const entry: { store: Store; worker?: MailWorker } = { store };
  opened.push(entry);
  return { store, file, entry };
}

/** A worker as the runtime has it once started: it looks at the outbox at once, then every `pollMs`. */
function createMailWorker(...args: Parameters<typeof createIdleMailWorker>): MailWorker {
  const worker = createIdleMailWorker(...args);
  worker.start();
  return worker;
}

const letter = (subject: string): OutgoingMail => ({ to: { address: 'reader@example.com' }, subject, text: `${subject} text`, html: `<p>${subject}</p>` });
const queue = (store: Store, ...mails: OutgoingMail[]) =>
  store.support.save({ id: randomUUID(), name: 'A', email: 'a@example.com', subject: 's', message: 'm', createdAt: Date.now() }, mails);
type Row = { attempts: number; sent_at: number | null; last_error: string | null; next_attempt_at: number };
function outboxRows(file: string): Row[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT attempts, sent_at, last_error, next_attempt_at FROM outbox').all() as Row[];
  } finally {
    db.close();
  }
}

describe('mail worker', () => {
  it('sends nothing until it is started, then what was queued before', async () => {
    const { store, file, entry } = newStore();
    await queue(store, letter('Waiting'));
    const sent: string[] = [];
    const recording: MailTransport = { kind: 'smtp', send: async (mail) => void sent.push(mail.subject) };
    const worker = (entry.worker = createIdleMailWorker({ store, transport: recording, pollMs: 1, retryBaseMs: 1000, retentionMs: 60_000 }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    await worker.drain();
    expect(sent).toEqual([]);
    expect(outboxRows(file).every((row) => row.sent_at === null)).toBe(true);
    worker.start();
    await until(() => sent.length === 1, 'the message queued before the start');
    await worker.drain();
    expect(sent).toEqual(['Waiting']);
  });

  it('sends what is queued by SMTP when kicked, and marks it sent', async () => {
    const { store, file, entry } = newStore();
    const worker = (entry.worker = createMailWorker({
      store,
      transport: createTransport(parseSettings({ SMTP_URL: smtp.url }), () => 'The Blog'),
      pollMs: 60_000,
      retryBaseMs: 1000,
      retentionMs: 60_000,
    }));
    await worker.drain();
    await queue(store, letter('First'), letter('Second'));
    worker.kick();
    await worker.drain();
    const subjects = smtp.messages.map((message) => message.subject);
    expect(subjects).toEqual(expect.arrayContaining(['First', 'Second']));
    expect(outboxRows(file).every((row) => row.sent_at !== null)).toBe(true);
  });

  it('keeps mail that fails and tries again later with backoff, warning once', async () => {
    const { store, file, entry } = newStore();
    const failing: MailTransport = {
      kind: 'smtp',
      send: async () => {
        throw new Error('mail server down');
      },
    };
    const warnings: string[] = [];
    await queue(store, letter('Later'), letter('Later too'));
    const before = Date.now();
    const worker = (entry.worker = createMailWorker({
      store,
      transport: failing,
      pollMs: 60_000,
      retryBaseMs: 10_000,
      retentionMs: 60_000,
      log: { warn: (message: string) => warnings.push(message) },
    }));
    await worker.drain();
    const rows = outboxRows(file);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row).toMatchObject({ attempts: 1, sent_at: null, last_error: 'mail server down' });
      expect(row.next_attempt_at).toBeGreaterThanOrEqual(before + backoffMs(1, 10_000));
    }
    expect(warnings).toEqual(['mail: sending failed (mail server down); retrying with backoff']);
  });

  it('sends a message again when marking it sent failed (a crash in between), with the same Message-ID', async () => {
    const { store, file, entry } = newStore();
    let crashes = 1;
    const crashing: Pick<Store, 'outbox' | 'bounces'> = {
      bounces: store.bounces,
      outbox: {
        ...store.outbox,
        markSent: async (input) => {
          if (crashes-- > 0) throw new Error('crashed before marking it sent');
          return store.outbox.markSent(input);
        },
      },
    };
    const worker = (entry.worker = createMailWorker({
      store: crashing,
      transport: createTransport(parseSettings({ SMTP_URL: smtp.url, SITE_URL: 'https://blog.example.com' }), () => 'The Blog'),
      pollMs: 60_000,
      retryBaseMs: 1,
      retentionMs: 60_000,
      log: { warn: () => {} },
    }));
    await worker.drain();
    await queue(store, letter('Twice'));
    worker.kick();
    await worker.drain();
    await new Promise((resolve) => setTimeout(resolve, 10));
    worker.kick();
    await worker.drain();
    const copies = smtp.messages.filter((message) => message.subject === 'Twice');
    expect(copies).toHaveLength(2);
    expect(copies[0]?.messageId).toMatch(/^<[\w-]+@blog\.example\.com>$/);
    expect(copies[1]?.messageId).toBe(copies[0]?.messageId);
    expect(outboxRows(file).every((row) => row.sent_at !== null)).toBe(true);
  });

  it('keeps its claims while a slow message is on the wire: a second worker sends none of them again', async () => {
    const { store, entry } = newStore();
    await queue(store, letter('Slow'), letter('Next'));
    // Read after the mail is queued: the mail is due on this clock.
    const time = fakeTime(Date.now());
    const taken: string[] = [];
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const worker = (entry.worker = createMailWorker({
      store,
      transport: { kind: 'smtp', send: async (mail) => void (taken.push(mail.subject), await answered) },
      pollMs: 60_000,
      retryBaseMs: 1000,
      retentionMs: 60_000,
      leaseMs: 1_000,
      clock: time.clock,
      timers: time.timers,
    }));
    await until(() => taken.length === 1, 'the first message on the wire');
    // The mail server holds its answer for three leases; another worker on the store looks meanwhile.
    const other: string[] = [];
    const second = createMailWorker({
      store,
      transport: { kind: 'smtp', send: async (mail) => void other.push(mail.subject) },
      pollMs: 60_000,
      retryBaseMs: 1000,
      retentionMs: 60_000,
      leaseMs: 1_000,
      clock: time.clock,
      timers: time.timers,
    });
    for (let lease = 0; lease < 3; lease++) {
      await time.advance(time.clock() + 1_000);
      second.kick();
      await second.drain();
    }
    second.stop();
    answer();
    await worker.drain();
    expect(taken.toSorted()).toEqual(['Next', 'Slow']);
    expect(other).toEqual([]);
  });

  it('deletes sent mail once it is older than the retention', async () => {
    const { store, file, entry } = newStore();
    const sent: string[] = [];
    const recording: MailTransport = { kind: 'smtp', send: async (mail) => void sent.push(mail.subject) };
    const worker = (entry.worker = createMailWorker({ store, transport: recording, pollMs: 1, retryBaseMs: 1000, retentionMs: 0 }));
    await queue(store, letter('Gone'));
    worker.kick();
    await worker.drain();
    expect(sent).toEqual(['Gone']);
    await expect.poll(() => outboxRows(file).length, { timeout: 5000 }).toBe(0);
  });

  it('sends nothing more once stopped', async () => {
    const { store, file, entry } = newStore();
    const sent: string[] = [];
    const worker = (entry.worker = createMailWorker({
      store,
      transport: { kind: 'smtp', send: async (mail) => void sent.push(mail.subject) },
      pollMs: 60_000,
      retryBaseMs: 1000,
      retentionMs: 60_000,
    }));
    await worker.drain();
    worker.stop();
    await queue(store, letter('Never'));
    worker.kick();
    await worker.drain();
    expect(sent).toEqual([]);
    expect(outboxRows(file)).toMatchObject([{ sent_at: null, attempts: 0 }]);
  });

  it('stopped mid-batch, finishes the message on the wire and gives the rest back at once', async () => {
    const { store, file, entry } = newStore();
    await queue(store, letter('One'), letter('Two'), letter('Three'));
    const sent: string[] = [];
    const worker: MailWorker = (entry.worker = createMailWorker({
      store,
      transport: {
        kind: 'smtp',
        send: async (mail) => {
          // The stop arrives while the first message is being sent.
          if (sent.length === 0) worker.stop();
          await new Promise((resolve) => setTimeout(resolve, 20));
          sent.push(mail.subject);
        },
      },
      pollMs: 60_000,
      retryBaseMs: 1000,
      retentionMs: 60_000,
    }));
    await worker.drain();
    expect(sent).toHaveLength(1);
    const rows = outboxRows(file);
    expect(rows.filter((row) => row.sent_at !== null)).toHaveLength(1);
    // The two unsent are due now, not a lease (a minute) from now: another sender takes them at once.
    const unsent = rows.filter((row) => row.sent_at === null);
    expect(unsent).toHaveLength(2);
    for (const row of unsent) expect(row.next_attempt_at).toBeLessThanOrEqual(Date.now());
    const [first] = await store.outbox.claimDue({ now: Date.now(), limit: 10, leaseMs: 60_000, claim: 'another-sender' });
    expect(first).toBeDefined();
  });
});

const refusing = await startSmtp(undefined, {
  refuse: (address) => (address.startsWith('gone@') ? { code: 550, message: '5.1.1 no such user' } : undefined),
});
afterAll(() => refusing.close());

describe('mail worker: bounces and failures for good', () => {
  const bounceSettings = parseSettings({ SMTP_URL: refusing.url, SITE_URL: 'https://blog.example.com', BOUNCE_ADDRESS: 'bounces@blog.example.com' });
  const soft = { limit: 3, windowMs: 60_000 };

  it('sends each message with an envelope sender of its own, whose token names the message and its recipient; From stays', async () => {
    const { store, entry } = newStore();
    const worker = (entry.worker = createMailWorker({
      ...bounceSettings.mail,
      store,
      transport: createTransport(bounceSettings, () => 'The Blog'),
      pollMs: 60_000,
    }));
    await queue(store, letter('Receipt one'), letter('Receipt two'));
    worker.kick();
    await worker.drain();
    const sent = refusing.messages.filter((message) => message.subject?.startsWith('Receipt'));
    expect(sent).toHaveLength(2);
    const tokens = sent.map((message) => verpToken(message.envelopeFrom, 'bounces@blog.example.com'));
    expect(tokens[0]).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(tokens[1]).not.toBe(tokens[0]);
    for (const message of sent) expect(message.from?.address).toBe('no-reply@blog.example.com');
    const outcome = await store.bounces.record({ tokenHash: hashToken(tokens[0] ?? ''), reportId: 'r1', kind: 'hard', detail: '5.2.0', now: Date.now(), soft });
    expect(outcome).toMatchObject({ matched: true, email: 'reader@example.com', action: 'suspended' });
  });

  it('records a message refused with 550 as failed after one try, and never tries it again', async () => {
    const { store, file, entry } = newStore();
    const warnings: string[] = [];
    const worker = (entry.worker = createMailWorker({
      ...bounceSettings.mail,
      retryBaseMs: 1,
      store,
      transport: createTransport(bounceSettings, () => 'The Blog'),
      pollMs: 60_000,
      log: { warn: (line: string) => warnings.push(line) },
    }));
    await queue(store, { ...letter('Refused'), to: { address: 'gone@example.com' } });
    worker.kick();
    await worker.drain();
    await new Promise((resolve) => setTimeout(resolve, 5));
    worker.kick();
    await worker.drain();
    const [row] = outboxRows(file);
    expect(row).toMatchObject({ attempts: 1, sent_at: null });
    expect(row?.last_error).toContain('550');
    expect(refusing.messages.filter((message) => message.subject === 'Refused')).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/^mail: a message failed for good after 1 attempt \(refused: .*550/)]);
  });

  it('stops retrying a temporary failure once the message is older than MAIL_RETRY_DAYS', async () => {
    const { store, file, entry } = newStore();
    const failing: MailTransport = {
      kind: 'smtp',
      send: async () => {
        throw Object.assign(new Error('451 try later'), { responseCode: 451 });
      },
    };
    await queue(store, letter('Deferred'));
    // The injected clock starts once the message is queued (by the real clock), so it is due at once.
    const time = { now: Date.now() };
    const worker = (entry.worker = createMailWorker({
      store,
      transport: failing,
      pollMs: 60_000,
      retryBaseMs: 1000,
      retentionMs: 30 * 86_400_000,
      retryForMs: 3 * 86_400_000,
      clock: () => time.now,
      log: { warn: () => {} },
    }));
    await worker.drain();
    expect(outboxRows(file)[0]).toMatchObject({ attempts: 1, last_error: '451 try later' });
    time.now += 3 * 86_400_000;
    worker.kick();
    await worker.drain();
    expect(outboxRows(file)[0]).toMatchObject({ attempts: 2, sent_at: null });
    time.now += 86_400_000;
    worker.kick();
    await worker.drain();
    expect(outboxRows(file)[0]).toMatchObject({ attempts: 2 });
  });
});
