import { afterEach, describe, expect, it, vi } from 'vitest';

/** lib/runtime/site.ts as a fresh process would load it with these settings (it keeps what it made). */
async function freshSite(settings: Record<string, string>) {
  vi.resetModules();
  for (const [name, value] of Object.entries(settings)) vi.stubEnv(name, value);
  return import('@/lib/runtime/site');
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.useRealTimers();
  vi.resetModules();
});

describe('absoluteUrl', () => {
  it('puts a path on the site URL, with or without its leading slash', async () => {
    const { absoluteUrl } = await freshSite({ SITE_URL: 'https://blog.example.test' });
    expect(absoluteUrl('/blog/a-post')).toBe('https://blog.example.test/blog/a-post');
    expect(absoluteUrl('llms.txt')).toBe('https://blog.example.test/llms.txt');
    expect(absoluteUrl('/')).toBe('https://blog.example.test/');
  });
});

describe('clock', () => {
  it("is the system's clock moved by LECTERN_CLOCK_OFFSET_MS", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    expect((await freshSite({})).clock()).toBe(1_000_000);
    expect((await freshSite({ LECTERN_CLOCK_OFFSET_MS: '-30000' })).clock()).toBe(970_000);
    vi.advanceTimersByTime(5000);
    expect((await freshSite({ LECTERN_CLOCK_OFFSET_MS: '60000' })).clock()).toBe(1_065_000);
  });
});
