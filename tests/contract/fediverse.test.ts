import { describe, expect, inject, it } from 'vitest';
import { fediverseSuite } from '../support/fediverse-suite';

// The fediverse's store and queue in DATA_DIR/fediverse.db (no Redis configured).
fediverseSuite('its store and queue in SQLite', async () => ({ env: {} }));

describe('a site without FEDIVERSE_HANDLE', () => {
  it('is not on the fediverse: no WebFinger, no actor, and a post answers its page whatever is asked', async () => {
    const base = inject('baseUrl');
    const host = new URL(base).host;
    const webfinger = await fetch(`${base}/.well-known/webfinger?resource=${encodeURIComponent(`acct:blog@${host}`)}`);
    expect(webfinger.status).toBe(404);
    expect((await fetch(`${base}/@blog`, { headers: { Accept: 'application/activity+json' } })).status).toBe(404);
    const post = await fetch(`${base}/blog/alpha-post`, { headers: { Accept: 'application/activity+json' } });
    expect(post.status).toBe(200);
    expect(post.headers.get('content-type') ?? '').not.toMatch(/activity\+json|ld\+json/);
  });
});
