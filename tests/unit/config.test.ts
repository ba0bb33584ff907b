import { afterEach, describe, expect, it, vi } from 'vitest';

/** lib/config.ts as a fresh process would load it with these settings (lib/settings.ts keeps what it parsed). */
async function freshConfig(settings: Record<string, string>) {
  vi.resetModules();
  for (const [name, value] of Object.entries(settings)) vi.stubEnv(name, value);
  return import('@/lib/config');
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('absoluteUrl', () => {
  it('puts a path on the site URL, with or without its leading slash', async () => {
    const { absoluteUrl } = await freshConfig({ SITE_URL: 'https://blog.example.test' });
    expect(absoluteUrl('/blog/a-post')).toBe('https://blog.example.test/blog/a-post');
    expect(absoluteUrl('llms.txt')).toBe('https://blog.example.test/llms.txt');
    expect(absoluteUrl('/')).toBe('https://blog.example.test/');
  });
});
