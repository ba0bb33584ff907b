import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';

const dists: string[] = [];

afterEach(() => {
  vi.unstubAllEnvs();
  for (const dist of dists.splice(0)) fs.rmSync(dist, { recursive: true, force: true });
});

/** `kept` of a fresh module (the settings are read once per process), in a build folder of its own. */
async function keptIn(dist: string, version: string | undefined) {
  vi.resetModules();
  vi.stubEnv('NEXT_DIST_DIR', dist);
  vi.stubEnv('LECTERN_RENDERER_VERSION', version ?? '');
  return (await import('@/lib/content/build-cache')).kept;
}

function newDist(): string {
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-build-cache-'));
  dists.push(dist);
  return dist;
}

describe('kept', () => {
  it('makes a thing once per key and version; a later process reads it back', async () => {
    const dist = newDist();
    const make = vi.fn(async () => Buffer.from('made'));
    expect((await (await keptIn(dist, 'one'))('card', 'a title', make)).toString()).toBe('made');
    expect((await (await keptIn(dist, 'one'))('card', 'a title', make)).toString()).toBe('made');
    expect(make).toHaveBeenCalledTimes(1);
    await (
      await keptIn(dist, 'one')
    )('card', 'another title', make);
    await (
      await keptIn(dist, 'two')
    )('card', 'a title', make);
    expect(make).toHaveBeenCalledTimes(3);
    expect(fs.readdirSync(path.join(dist, 'cache', 'lectern-card'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile())).toHaveLength(
      3,
    );
  });

  it("keeps nothing without a renderer version (code run outside Next's build)", async () => {
    const dist = newDist();
    const make = vi.fn(async () => Buffer.from('made'));
    const kept = await keptIn(dist, undefined);
    await kept('card', 'a title', make);
    await kept('card', 'a title', make);
    expect(make).toHaveBeenCalledTimes(2);
    expect(fs.existsSync(path.join(dist, 'cache'))).toBe(false);
  });
});
