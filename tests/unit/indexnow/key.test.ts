import { afterEach, describe, expect, it, vi } from 'vitest';
import { indexNowKey } from '@/lib/indexnow/key';

afterEach(() => vi.unstubAllEnvs());

describe('indexNowKey', () => {
  it('is INDEXNOW_KEY when it is 8 to 128 letters, digits or hyphens', () => {
    vi.stubEnv('INDEXNOW_KEY', 'a1b2-c3d4');
    expect(indexNowKey()).toBe('a1b2-c3d4');
  });

  it('is undefined when unset, too short or holding anything a URL path would need escaped', () => {
    for (const value of ['', 'short', 'has space 123', '../../etc/passwd', 'k'.repeat(129)]) {
      vi.stubEnv('INDEXNOW_KEY', value);
      expect(indexNowKey()).toBeUndefined();
    }
  });
});
