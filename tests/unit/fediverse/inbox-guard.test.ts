import { describe, expect, it } from 'vitest';
import { activityActors, inboxGuard, isBlockedHost, signingKeys, type InboxAdmission } from '@/lib/fediverse/inbox-guard';
import { memoryLimiter } from '@/lib/limits/limiter';
import { routeLimits } from '@/lib/limits/table';
import type { Settings } from '@/lib/settings';

const behindOneProxy: Settings['deployment'] = { trustProxy: 1, clientIpHeader: undefined, platform: false };
const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** An inbox post from `address`, signed (as Mastodon signs) with the key `keyId` when given. */
function inboxPost(address: string, keyId?: string): Request {
  const headers: Record<string, string> = { 'X-Forwarded-For': address, 'Content-Type': 'application/activity+json' };
  if (keyId) headers.Signature = `keyId="${keyId}",algorithm="rsa-sha256",headers="(request-target) host date digest",signature="c2ln"`;
  return new Request('https://blog.example/inbox', { method: 'POST', headers });
}

function guardOf(blockedDomains: readonly string[] = []) {
  let now = Date.parse('2026-11-28T12:00:00Z');
  const clock = () => now;
  const limiter = memoryLimiter({ windowScale: 1, clock });
  const guard = inboxGuard({ limiter: () => limiter, deployment: behindOneProxy, blockedDomains, clock });
  return { guard, advance: (ms: number) => (now += ms) };
}

async function problemOf(admission: InboxAdmission) {
  expect(admission.refused).toBeDefined();
  const response = admission.refused!;
  expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('no-store');
  return { status: response.status, headers: response.headers, body: (await response.json()) as { title: string; detail: string } };
}

describe('isBlockedHost', () => {
  it('blocks a listed domain and every subdomain of it, in any case, and nothing that merely ends with its letters', () => {
    const blocked = ['spam.example'];
    expect(isBlockedHost('spam.example', blocked)).toBe(true);
    expect(isBlockedHost('mastodon.spam.example', blocked)).toBe(true);
    expect(isBlockedHost('Social.SPAM.example.', blocked)).toBe(true);
    expect(isBlockedHost('notspam.example', blocked)).toBe(false);
    expect(isBlockedHost('spam.example.org', blocked)).toBe(false);
    expect(isBlockedHost('spam.example', [])).toBe(false);
  });
});

describe('signingKeys and activityActors', () => {
  it('read the signing key of an HTTP Signature and of each RFC 9421 signature, and nothing that is not an http(s) URL', () => {
    const headers = new Headers({
      Signature: 'keyId="https://mastodon.example/users/a#main-key",algorithm="rsa-sha256",signature="x"',
      'Signature-Input': 'sig1=("@method" "@target-uri");created=1;keyid="https://other.example/u/b#key";alg="rsa-v1_5-sha256"',
    });
    expect(signingKeys(headers).map((url) => url.href)).toEqual(['https://mastodon.example/users/a#main-key', 'https://other.example/u/b#key']);
    expect(signingKeys(new Headers({ Signature: 'keyId="acct:a@b.example",signature="x"' }))).toEqual([]);
    expect(signingKeys(new Headers())).toEqual([]);
  });

  it("read an activity's actor as a URL, an object with an id, or a list; a body that is not JSON names none", () => {
    expect(activityActors(encode({ type: 'Like', actor: 'https://a.example/u/1' })).map(String)).toEqual(['https://a.example/u/1']);
    expect(activityActors(encode({ actor: { id: 'https://b.example/u/2', type: 'Person' } })).map(String)).toEqual(['https://b.example/u/2']);
    expect(activityActors(encode({ actor: ['https://a.example/u/1', { id: 'https://c.example/u/3' }] })).map(String)).toEqual([
      'https://a.example/u/1',
      'https://c.example/u/3',
    ]);
    expect(activityActors(new TextEncoder().encode('not json'))).toEqual([]);
    expect(activityActors(encode(['https://a.example/u/1']))).toEqual([]);
  });
});

describe('the inbox guard', () => {
  it("refuses an address's posts past its budget with 429, Retry-After and the RateLimit headers; another address has its own", async () => {
    const { guard } = guardOf();
    const budget = routeLimits.fediverseInbox.requests;
    const key = 'https://fine.example/users/a#main-key';
    for (let i = 0; i < budget; i++) expect((await guard.admitHeaders(inboxPost('203.0.113.7', key))).refused).toBeUndefined();
    const refused = await problemOf(await guard.admitHeaders(inboxPost('203.0.113.7', key)));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-policy')).toBe(`"fediverseInbox";q=${budget};w=60`);
    expect(refused.body.title).toBe('Too many requests');
    expect((await guard.admitHeaders(inboxPost('203.0.113.8', key))).refused).toBeUndefined();
  });

  it('refuses a post that names no signing key with 401 from its headers, counted against its address all the same', async () => {
    const { guard } = guardOf();
    const refused = await problemOf(await guard.admitHeaders(inboxPost('203.0.113.7')));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('connection')).toBe('close');
    expect(refused.headers.get('ratelimit-policy')).toBe(`"fediverseInbox";q=${routeLimits.fediverseInbox.requests};w=60`);
  });

  it('refuses a post signed with a key of a blocked domain or a subdomain of it with 403, from its headers alone', async () => {
    const { guard } = guardOf(['spam.example']);
    for (const keyId of ['https://spam.example/users/a#main-key', 'https://social.spam.example/u/b#key']) {
      const refused = await problemOf(await guard.admitHeaders(inboxPost('203.0.113.7', keyId)));
      expect(refused.status).toBe(403);
      expect(refused.body.title).toBe('Server blocked');
      expect(refused.headers.get('connection')).toBe('close');
    }
    const admitted = await guard.admitHeaders(inboxPost('203.0.113.7', 'https://fine.example/users/a#main-key'));
    expect(admitted.refused).toBeUndefined();
  });

  it('refuses an activity whose actor is on a blocked domain once its body is read, whoever signed it', async () => {
    const { guard } = guardOf(['spam.example']);
    const admitted = await guard.admitHeaders(inboxPost('203.0.113.7', 'https://fine.example/users/a#main-key'));
    if (admitted.refused) throw new Error('admitted expected');
    const refused = await problemOf(guard.admitBody(encode({ type: 'Follow', actor: 'https://spam.example/users/x' }), admitted));
    expect(refused.status).toBe(403);
    expect(guard.admitBody(encode({ type: 'Follow', actor: 'https://fine.example/users/a' }), admitted).refused).toBeUndefined();
  });

  it('answers a server whose verified posts went over its budget with 429 until its wait is over; unverified posts that name its key spend nothing', async () => {
    const { guard, advance } = guardOf();
    const key = 'https://busy.example/users/a#main-key';
    const budget = routeLimits.fediverseServer.requests;
    // Posts that only claim the server's key (never verified, never counted) do not touch its budget.
    for (let i = 0; i < 3 * budget; i++) expect((await guard.admitHeaders(inboxPost(`198.51.100.${i % 200}`, key))).refused).toBeUndefined();
    for (let i = 0; i < budget; i++) await guard.counted('busy.example');
    expect((await guard.admitHeaders(inboxPost('203.0.113.7', key))).refused).toBeUndefined();
    // The post past the budget was taken (it was verified); from then on the server waits.
    await guard.counted('busy.example');
    const refused = await problemOf(await guard.admitHeaders(inboxPost('203.0.113.7', key)));
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(61);
    expect(refused.body.detail).toMatch(/your server/);
    // Another server is not held back, nor is the same one once its wait is over.
    expect((await guard.admitHeaders(inboxPost('203.0.113.7', 'https://quiet.example/users/b#main-key'))).refused).toBeUndefined();
    advance(wait * 1000);
    expect((await guard.admitHeaders(inboxPost('203.0.113.7', key))).refused).toBeUndefined();
  });

  it("counts a post against its actor's server, whatever keys its headers name, and refuses one that names no actor", async () => {
    const { guard } = guardOf();
    const admitted = await guard.admitHeaders(inboxPost('203.0.113.7', 'https://victim.example/users/a#main-key'));
    if (admitted.refused) throw new Error('admitted expected');
    expect(guard.admitBody(encode({ actor: 'https://sender.example/u/1' }), admitted)).toMatchObject({ server: 'sender.example' });
    expect((await problemOf(guard.admitBody(encode({ type: 'Like' }), admitted))).status).toBe(400);
    // Past its budget, the actor's server waits, named by its actor or its key.
    for (let i = 0; i <= routeLimits.fediverseServer.requests; i++) await guard.counted('sender.example');
    expect((await problemOf(guard.admitBody(encode({ actor: 'https://sender.example/u/1' }), admitted))).status).toBe(429);
    expect((await problemOf(await guard.admitHeaders(inboxPost('203.0.113.7', 'https://sender.example/u/1#key')))).status).toBe(429);
  });
});
