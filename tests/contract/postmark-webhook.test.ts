import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Database } from '@/lib/services/store/sqlite-database';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAddress, postForm, postJson } from '../support/client';
import { contractSites } from '../support/contract-sites';
import { startSmtp } from '../support/smtp';

/**
 * Postmark's bounce and spam-complaint webhook on the built site, for platform mode: the payloads
 * are Postmark's documented ones, authenticated with the Basic credentials Postmark sends
 * (POSTMARK_WEBHOOK_AUTH), and matched by the bounce token lectern put in each message's
 * X-PM-Metadata-bounce-token header (Postmark returns it as Metadata).
 */
const AUTH = 'postmark:a-long-webhook-password-0123';
const basic = (credentials: string) => ({ Authorization: `Basic ${Buffer.from(credentials).toString('base64')}` });
const site = contractSites();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-postmark-'));
const smtp = await startSmtp();
let base: string;
let db: Database;
const tokens = new Map<string, string>();

afterAll(async () => {
  db?.close();
  await smtp.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

beforeAll(async () => {
  const running = await site({
    extraEnv: { DATA_DIR: dataDir, SMTP_URL: smtp.url, BOUNCE_ADDRESS: 'bounces@example.com', POSTMARK_WEBHOOK_AUTH: AUTH, MAIL_POLL_MS: '200' },
  });
  base = running.baseUrl;
  const origin = { Origin: new URL(inject('siteUrl')).origin };
  for (const email of ['bounced@example.com', 'complained@example.com']) {
    expect((await postJson(base, '/api/subscribe', { email }, { from: freshAddress() })).status).toBe(202);
    const mail = await smtp.waitFor((message) => message.envelopeTo.includes(email));
    tokens.set(email, /^X-PM-Metadata-bounce-token: *(\S+)/im.exec(mail.raw)?.[1] ?? '');
    const confirm = /token=([\w-]+)/.exec(mail.text ?? '')?.[1] ?? '';
    expect((await postForm(base, '/api/subscribe/confirm', { token: confirm }, { from: freshAddress(), headers: origin })).status).toBe(303);
  }
  db = new Database(path.join(dataDir, 'lectern.db'), { readonly: true });
});

const bounce = (email: string, overrides: Record<string, unknown> = {}) => ({
  RecordType: 'Bounce',
  MessageStream: 'outbound',
  ID: 4323372036854775,
  Type: 'HardBounce',
  TypeCode: 1,
  Name: 'Hard bounce',
  Tag: '',
  MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
  Metadata: { 'bounce-token': tokens.get(email) },
  ServerID: 23,
  Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
  Details: 'smtp;550 5.1.1 The email account that you tried to reach does not exist.',
  Email: email,
  From: 'no-reply@localhost',
  BouncedAt: '2026-11-05T16:33:54.9070259Z',
  DumpAvailable: false,
  Inactive: true,
  CanActivate: true,
  Subject: 'Confirm your subscription',
  ...overrides,
});
const complaint = (email: string) =>
  bounce(email, { RecordType: 'SpamComplaint', ID: 4323372036854776, Type: 'SpamComplaint', TypeCode: 512, Name: 'Spam complaint', Details: '' });
const webhook = (body: unknown, headers: Record<string, string> = basic(AUTH)) =>
  postJson(base, '/api/bounces/postmark', body, { from: freshAddress(), headers });

const subscriberStatus = (email: string) => db.prepare<[string], { status: string }>('SELECT status FROM subscribers WHERE email = ?').get(email)?.status;
const rejection = (email: string) => db.prepare<[string], { last_error: string }>('SELECT last_error FROM newsletter_rejections WHERE email = ?').get(email);
const bounceEvents = () => (db.prepare('SELECT COUNT(*) AS n FROM bounce_events').get() as { n: number }).n;

describe("Postmark's bounce and complaint webhook", () => {
  it('puts each message’s bounce token in the header Postmark returns as Metadata', () => {
    expect([...tokens.values()]).toEqual([expect.stringMatching(/^[A-Za-z0-9_-]{32}$/), expect.stringMatching(/^[A-Za-z0-9_-]{32}$/)]);
  });

  it('refuses wrong or missing credentials with 401 and changes nothing', async () => {
    for (const headers of [basic('postmark:a-long-webhook-password-0124'), basic('other:a-long-webhook-password-0123'), {}, { Authorization: 'Bearer x' }]) {
      const refused = await webhook(bounce('bounced@example.com'), headers);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toBe('Basic realm="postmark", charset="UTF-8"');
      expect(refused.json()).toMatchObject({ status: 401 });
    }
    const complaintRefused = await webhook(complaint('complained@example.com'), basic('postmark:wrong'));
    expect(complaintRefused.status).toBe(401);
    expect(bounceEvents()).toBe(0);
    expect(rejection('bounced@example.com')).toBeUndefined();
    expect(subscriberStatus('complained@example.com')).toBe('confirmed');
  });

  it('suspends the address of a hard bounce from the newsletter and records its mail failed; the same bounce again changes nothing', async () => {
    const response = await webhook(bounce('bounced@example.com'));
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ recorded: true, action: 'suspended' });
    expect(rejection('bounced@example.com')?.last_error).toBe(
      'hard bounce: Postmark HardBounce: smtp;550 5.1.1 The email account that you tried to reach does not exist.',
    );
    const mail = db.prepare<[], { failed_at: number | null }>("SELECT failed_at FROM outbox WHERE mail LIKE '%bounced@example.com%'").all();
    expect(mail).toEqual([{ failed_at: expect.any(Number) }]);
    const again = await webhook(bounce('bounced@example.com'));
    expect(again.json()).toEqual({ recorded: true, action: 'duplicate' });
    expect(bounceEvents()).toBe(1);
  });

  it('unsubscribes the address of a spam complaint', async () => {
    const response = await webhook(complaint('complained@example.com'));
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ recorded: true, action: 'unsubscribed' });
    expect(subscriberStatus('complained@example.com')).toBe('unsubscribed');
  });

  it('answers 200 for a report it does not act on or that names no message of ours, and 400 for a body that is not one', async () => {
    const autoReply = await webhook(bounce('bounced@example.com', { ID: 1, Type: 'AutoResponder', TypeCode: 2 }));
    expect(autoReply.json()).toEqual({ recorded: false, reason: 'not a bounce lectern acts on (Bounce AutoResponder)' });
    const unknown = await webhook(bounce('bounced@example.com', { ID: 2, Metadata: { 'bounce-token': 'x'.repeat(32) } }));
    expect(unknown.json()).toEqual({ recorded: false, reason: 'unknown bounce token' });
    const untokened = await webhook(bounce('bounced@example.com', { ID: 3, Metadata: {} }));
    expect(untokened.json()).toEqual({ recorded: false, reason: 'no bounce token' });
    const invalid = await webhook({ Type: 'HardBounce' });
    expect(invalid.status).toBe(400);
    expect(bounceEvents()).toBe(2); // the hard bounce and the complaint above
  });
});
