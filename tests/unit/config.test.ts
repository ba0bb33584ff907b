import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** lib/config.ts as a fresh process would load it with these settings (both it and lib/env.ts keep what they read). */
async function freshConfig(settings: Record<string, string>) {
  vi.resetModules();
  for (const [name, value] of Object.entries(settings)) vi.stubEnv(name, value);
  return import('@/lib/config');
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('config', () => {
  it('gives the site facts from the settings, with the content folder made absolute', async () => {
    const { config } = await freshConfig({
      SITE_URL: 'https://blog.example.test',
      CONTENT_DIR: 'tests/fixtures/content',
      POSTS_PER_PAGE: '7',
      PRERENDER_POSTS: '3',
      PREWARM: '0',
      LECTERN_BUILD_TIME: '1700000000000',
    });
    expect(config()).toMatchObject({
      siteUrl: 'https://blog.example.test',
      contentDir: path.resolve('tests/fixtures/content'),
      postsPerPage: 7,
      prerenderPosts: 3,
      prewarm: false,
      publishedBefore: 1_700_000_000_000,
    });
  });

  it('publishes up to the moment the settings were first read when no build time is set', async () => {
    const before = Date.now();
    const { config } = await freshConfig({ LECTERN_BUILD_TIME: '' });
    const { publishedBefore } = config();
    expect(publishedBefore).toBeGreaterThanOrEqual(before);
    expect(publishedBefore).toBeLessThanOrEqual(Date.now());
    // Read once: a later call does not move "now" forward.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(config().publishedBefore).toBe(publishedBefore);
  });
});

describe('absoluteUrl', () => {
  it('puts a path on the site URL, with or without its leading slash', async () => {
    const { absoluteUrl } = await freshConfig({ SITE_URL: 'https://blog.example.test' });
    expect(absoluteUrl('/blog/a-post')).toBe('https://blog.example.test/blog/a-post');
    expect(absoluteUrl('llms.txt')).toBe('https://blog.example.test/llms.txt');
    expect(absoluteUrl('/')).toBe('https://blog.example.test/');
  });
});
