import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { chooseEncoding, type Coding } from '../http/accept-encoding';

/**
 * The copies of a kept body: the bytes, and gzip and brotli copies made once, off
 * the event loop, each with a strong ETag of its own (they are other bytes).
 */

/** One copy of a body, with its ETag. */
export type Copy = { body: Buffer; etag: string };

/** A body and its compressed copies; a copy is kept only when it is smaller than the body. */
export type Copies = { body: Buffer; etag: string; gzip: Copy | null; br: Copy | null };

const COMPRESS_MIN_BYTES = 1024;
const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);
/**
 * Brotli's best quality (11) for bodies up to this size, quality 5 above it. A copy is made
 * once per page, but the first request waits for it: at quality 11 brotli takes about 60 ms
 * for 43 KB of text and 600 ms for 340 KB, while quality 5 takes about 10 ms for either and
 * is some 5 to 10 % larger. A long list page (thousands of posts) stays fast to make.
 */
const BROTLI_BEST_MAX_BYTES = 128 * 1024;

function brotliOf(body: Buffer): Promise<Buffer> {
  return brotliAsync(body, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: body.length <= BROTLI_BEST_MAX_BYTES ? zlib.BROTLI_MAX_QUALITY : 5,
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
      [zlib.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

export function strongEtag(body: Buffer, suffix = ''): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}${suffix}"`;
}

/** Text and the structured text formats: worth compressing. */
export function isCompressible(contentType: string): boolean {
  return /^(text\/|application\/(json|xml|rss\+xml|atom\+xml|feed\+json|linkset\+json|problem\+json|javascript)|image\/svg\+xml)/.test(contentType);
}

/** Whether compression is tried on a body of this type and size (the response then varies on Accept-Encoding). */
export function triesCompression(contentType: string, body: Buffer): boolean {
  return isCompressible(contentType) && body.length >= COMPRESS_MIN_BYTES;
}

/** The gzip and brotli copies of a body, each kept only when smaller than the body. */
export async function compressedCopies(body: Buffer): Promise<Pick<Copies, 'gzip' | 'br'>> {
  const [zipped, brotli] = await Promise.all([gzipAsync(body), brotliOf(body)]);
  return {
    gzip: zipped.length < body.length ? { body: zipped, etag: strongEtag(body, '-gz') } : null,
    br: brotli.length < body.length ? { body: brotli, etag: strongEtag(body, '-br') } : null,
  };
}

/** The copy to send for a request's Accept-Encoding. */
export function codingFor(req: Pick<IncomingMessage, 'headers'>, copies: Pick<Copies, 'gzip' | 'br'>): Coding {
  if (!copies.gzip && !copies.br) return 'identity';
  return chooseEncoding(req.headers['accept-encoding'], [...(copies.br ? (['br'] as const) : []), ...(copies.gzip ? (['gzip'] as const) : [])]);
}

export function copyOf(copies: Copies, coding: Coding): Copy {
  return (coding === 'identity' ? undefined : copies[coding]) ?? { body: copies.body, etag: copies.etag };
}

/** Every ETag a body answers to: one per copy. */
export function etagsOf(copies: Pick<Copies, 'etag' | 'gzip' | 'br'>): string[] {
  return [copies.etag, ...(copies.gzip ? [copies.gzip.etag] : []), ...(copies.br ? [copies.br.etag] : [])];
}
