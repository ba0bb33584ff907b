import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claimWentLive, type LivePost } from '@/lib/publishing/went-live';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import type { Store } from '@/lib/services/store/types';

let dir: string;
let stores: Store[];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-went-live-'));
  stores = [];
});

afterEach(async () => {
  await Promise.all(stores.map((store) => store.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One store file, opened as two instances open it. */
function open(): Store {
  const store = openSqliteStore(path.join(dir, 'lectern.db'));
  stores.push(store);
  return store;
}

const post = (slug: string, dateMillis: number): LivePost => ({ slug, dateMillis, url: `https://example.com/blog/${slug}` });
const OLD = [post('second', 200), post('first', 100)];

describe('claimWentLive', () => {
  it('announces none of the posts live at the first run', async () => {
    expect(await claimWentLive(open().settings, OLD, 1_000)).toEqual([]);
  });

  it('announces a post that went live after the first run once, whichever instance asks, and again never', async () => {
    const [one, two] = [open(), open()];
    await claimWentLive(one.settings, OLD, 1_000);
    const live = [post('scheduled', 2_000), ...OLD];
    const [a, b] = await Promise.all([claimWentLive(one.settings, live, 2_000), claimWentLive(two.settings, live, 2_001)]);
    expect([...a, ...b].map((claimed) => claimed.slug)).toEqual(['scheduled']);
    expect(await claimWentLive(one.settings, live, 3_000)).toEqual([]);
  });

  it('an instance that was down announces at its start what went live meanwhile, oldest and newest alike', async () => {
    await claimWentLive(open().settings, OLD, 1_000);
    const live = [post('later', 3_000), post('sooner', 2_000), ...OLD];
    const claimed = await claimWentLive(open().settings, live, 4_000);
    expect(claimed.map((entry) => entry.slug)).toEqual(['later', 'sooner']);
  });
});
