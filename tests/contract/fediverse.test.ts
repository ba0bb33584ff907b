import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { fediverseSuite } from '../support/fediverse-suite';
import { copyContractBuild, freePort, ROOT, startSite, type RunningSite } from '../support/site';

// The fediverse's store and queue in DATA_DIR/fediverse.db (no Redis configured).
fediverseSuite('its store and queue in SQLite', async () => ({ env: {} }));

const AS = 'application/activity+json';

describe('the site as built and started with no fediverse setting', () => {
  it('is on the fediverse as @blog, the default handle', async () => {
    const base = inject('baseUrl');
    const host = new URL(base).host;
    const webfinger = await fetch(`${base}/.well-known/webfinger?resource=${encodeURIComponent(`acct:blog@${host}`)}`);
    expect(webfinger.status).toBe(200);
    expect(JSON.stringify(await webfinger.json())).toContain(`${base}/@blog`);
    const actor = await fetch(`${base}/@blog`, { headers: { Accept: AS } });
    expect(actor.status).toBe(200);
    expect(await actor.json()).toMatchObject({ type: 'Person', preferredUsername: 'blog' });
  });
});

describe('a site with FEDIVERSE=0', () => {
  let site: RunningSite;
  let build: string;

  beforeAll(async () => {
    build = copyContractBuild(path.join(ROOT, inject('distDir')), 'fediverse-off');
    const port = await freePort();
    site = await startSite({
      contentDir: inject('contentDir'),
      distDir: path.relative(ROOT, build),
      siteUrl: `http://127.0.0.1:${port}`,
      port,
      extraEnv: { FEDIVERSE: '0', PREWARM: '0', POSTS_PER_PAGE: '1', PRERENDER_POSTS: '2' },
    });
  });

  afterAll(async () => {
    await site?.stop();
    if (build) fs.rmSync(build, { recursive: true, force: true });
  });

  it('is not on the fediverse: no WebFinger, no actor, no inbox, and a post answers its page whatever is asked', async () => {
    const base = site.baseUrl;
    const host = new URL(base).host;
    const webfinger = await fetch(`${base}/.well-known/webfinger?resource=${encodeURIComponent(`acct:blog@${host}`)}`);
    expect(webfinger.status).toBe(404);
    expect((await fetch(`${base}/@blog`, { headers: { Accept: AS } })).status).toBe(404);
    const inbox = await fetch(`${base}/inbox`, { method: 'POST', headers: { 'Content-Type': AS }, body: '{}' });
    expect(inbox.status).not.toBe(202);
    expect(inbox.status).toBeLessThan(500);
    const post = await fetch(`${base}/blog/alpha-post`, { headers: { Accept: AS } });
    expect(post.status).toBe(200);
    expect(post.headers.get('content-type') ?? '').not.toMatch(/activity\+json|ld\+json/);
    expect(fs.existsSync(path.join(site.dataDir, 'fediverse.db'))).toBe(false);
  });
});
