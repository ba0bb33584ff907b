import { describe, expect, it } from 'vitest';
import { createReadStore, ENTRY_OVERHEAD_BYTES, isShareable, sizeOf, type Entry } from '@/lib/server/read-store';

function entry(bytes: number, extra: Partial<Entry> = {}): Entry {
  return {
    status: 200,
    headers: [['cache-control', 'public, max-age=60']],
    body: Buffer.alloc(bytes),
    etag: '"e"',
    gzip: null,
    br: null,
    variant: undefined,
    compressible: false,
    heads: {},
    prerendered: false,
    ...extra,
  };
}

describe('the read store', () => {
  it('counts an entry as its body, its copies and a fixed allowance', () => {
    expect(sizeOf(entry(100))).toBe(100 + ENTRY_OVERHEAD_BYTES);
    expect(sizeOf(entry(100, { gzip: { body: Buffer.alloc(30), etag: '"g"' }, br: { body: Buffer.alloc(20), etag: '"b"' } }))).toBe(150 + ENTRY_OVERHEAD_BYTES);
  });

  it('keeps nothing with a budget of 0', () => {
    expect(createReadStore(0)).toBeUndefined();
  });

  it('lets the least recently used entries go when the budget runs out', () => {
    const store = createReadStore(3 * (1000 + ENTRY_OVERHEAD_BYTES))!;
    store.set('/a', entry(1000));
    store.set('/b', entry(1000));
    store.set('/c', entry(1000));
    expect(store.get('/a')).toBeDefined();
    store.set('/d', entry(1000));
    expect(store.get('/b')).toBeUndefined();
    expect(['/a', '/c', '/d'].map((key) => store.get(key) !== undefined)).toEqual([true, true, true]);
  });

  it('says whether an entry fits the budget at all', () => {
    const store = createReadStore(1000 + ENTRY_OVERHEAD_BYTES)!;
    expect(store.fits(entry(1000))).toBe(true);
    expect(store.fits(entry(1001))).toBe(false);
  });

  it.each([
    ['public, max-age=60', 200, {}, true],
    ['s-maxage=31536000', 200, {}, true],
    ['max-age=60', 200, {}, false],
    ['public, no-store', 200, {}, false],
    ['private, max-age=60', 200, {}, false],
    ['public, no-cache', 200, {}, false],
    ['public, max-age=60', 404, {}, false],
    ['public, max-age=60', 200, { 'set-cookie': 'a=b' }, false],
  ])('keeps a %s response with status %i and %j: %s', (cacheControl, status, more, expected) => {
    const headers: Entry['headers'] = [['cache-control', cacheControl], ...Object.entries(more)];
    expect(isShareable({ status, headers })).toBe(expected);
  });
});
