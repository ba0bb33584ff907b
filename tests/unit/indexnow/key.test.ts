import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => vi.unstubAllEnvs());

// The settings are parsed once per process (lib/env.ts): each case loads the modules afresh.
async function keyWith(value: string) {
  vi.resetModules();
  vi.stubEnv('INDEXNOW_KEY', value);
  return (await import('@/lib/indexnow/key')).indexNowKey();
}

describe('indexNowKey', () => {
  it('is INDEXNOW_KEY when it is 8 to 128 letters, digits or hyphens', async () => {
    expect(await keyWith('a1b2-c3d4')).toBe('a1b2-c3d4');
  });

  it('is undefined when unset', async () => {
    expect(await keyWith('')).toBeUndefined();
  });

  it('a key too short or holding anything a URL path would need escaped is a bad setting, named', async () => {
    for (const value of ['short', 'has space 123', '../../etc/passwd', 'k'.repeat(129)]) {
      await expect(keyWith(value), value).rejects.toThrow(/INDEXNOW_KEY: must be 8 to 128 letters, digits or dashes/);
    }
  });
});
