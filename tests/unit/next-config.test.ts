import { availableParallelism } from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';

/** next.config.ts as `next build` loads it in a fresh process with these variables set. */
async function configWith(variables: Record<string, string>) {
  vi.resetModules();
  for (const [name, value] of Object.entries(variables)) vi.stubEnv(name, value);
  return (await import('../../next.config')).default;
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('next.config.ts', () => {
  it('takes the build folder, the build time and the number of build workers from the settings', async () => {
    const config = await configWith({ NEXT_DIST_DIR: '.next-elsewhere', LECTERN_BUILD_TIME: '1700000000000', BUILD_WORKERS: '3' });
    expect(config.distDir).toBe('.next-elsewhere');
    expect(config.env?.LECTERN_BUILD_TIME).toBe('1700000000000');
    expect(config.experimental?.cpus).toBe(3);
  });

  it('builds with one worker per CPU, into .next, as of the moment it is loaded when nothing is set', async () => {
    const before = Date.now();
    const config = await configWith({ NEXT_DIST_DIR: '', LECTERN_BUILD_TIME: '', BUILD_WORKERS: '' });
    expect(config.distDir).toBe('.next');
    expect(config.experimental?.cpus).toBe(availableParallelism());
    expect(Number(config.env?.LECTERN_BUILD_TIME)).toBeGreaterThanOrEqual(before);
    expect(Number(config.env?.LECTERN_BUILD_TIME)).toBeLessThanOrEqual(Date.now());
  });
});
