import { randomBytes } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { codingFor, compressedCopies, copyOf, etagsOf, isCompressible, strongEtag, triesCompression } from '@/lib/server/encodings';

const text = Buffer.from('lectern keeps every page once. '.repeat(100));

describe('the copies of a kept body', () => {
  it('makes gzip and brotli copies that give back the bytes, each with an ETag of its own', async () => {
    const copies = await compressedCopies(text);
    expect(gunzipSync(copies.gzip!.body).equals(text)).toBe(true);
    expect(brotliDecompressSync(copies.br!.body).equals(text)).toBe(true);
    expect(new Set([strongEtag(text), copies.gzip!.etag, copies.br!.etag]).size).toBe(3);
    expect(copies.gzip!.etag).toBe(strongEtag(text, '-gz'));
  });

  it('keeps no copy that is not smaller than the body', async () => {
    expect(await compressedCopies(randomBytes(2048))).toEqual({ gzip: null, br: null });
  });

  it('gives the same bytes the same strong ETag, and other bytes another', () => {
    expect(strongEtag(Buffer.from('a'))).toBe(strongEtag(Buffer.from('a')));
    expect(strongEtag(Buffer.from('a'))).not.toBe(strongEtag(Buffer.from('b')));
    expect(strongEtag(Buffer.from('a'))).toMatch(/^"[\w-]{27}"$/);
  });

  it('compresses text and the structured text formats, and nothing else', () => {
    const types = ['text/html; charset=utf-8', 'application/json', 'application/feed+json', 'image/svg+xml', 'image/png', 'application/octet-stream'];
    expect(types.filter(isCompressible)).toEqual(['text/html; charset=utf-8', 'application/json', 'application/feed+json', 'image/svg+xml']);
  });

  it('tries compression on text from 1 KiB on', () => {
    expect(triesCompression('text/plain', Buffer.alloc(1024))).toBe(true);
    expect(triesCompression('text/plain', Buffer.alloc(1023))).toBe(false);
    expect(triesCompression('image/png', Buffer.alloc(4096))).toBe(false);
  });

  it("sends the copy a request's Accept-Encoding ranks first among those kept, and the bytes when none is kept", async () => {
    const copies = { body: text, etag: strongEtag(text), ...(await compressedCopies(text)) };
    const request = (value?: string) => ({ headers: value === undefined ? {} : { 'accept-encoding': value } });
    expect(codingFor(request('gzip, deflate, br'), copies)).toBe('br');
    expect(codingFor(request('gzip'), copies)).toBe('gzip');
    expect(codingFor(request(), copies)).toBe('identity');
    expect(codingFor(request('br'), { gzip: copies.gzip, br: null })).toBe('identity');
    expect(copyOf(copies, 'br')).toBe(copies.br);
    expect(copyOf({ ...copies, gzip: null }, 'gzip')).toEqual({ body: text, etag: copies.etag });
    expect(etagsOf(copies)).toEqual([copies.etag, copies.gzip!.etag, copies.br!.etag]);
    expect(etagsOf({ ...copies, br: null })).toEqual([copies.etag, copies.gzip!.etag]);
  });
});
