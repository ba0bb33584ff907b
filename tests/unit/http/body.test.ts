import { describe, expect, it } from 'vitest';
import { hasBody, readBody } from '@/lib/http/body';

/** A request whose body arrives in `chunks`, with no length; records how many chunks were pulled and whether it was cancelled. */
function streamed(chunks: Uint8Array[]) {
  const seen = { pulled: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[seen.pulled];
      seen.pulled += 1;
      if (chunk) controller.enqueue(chunk);
      else controller.close();
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  const request = new Request('http://localhost/api/subscribe', { method: 'POST', body, duplex: 'half' } as RequestInit);
  return { request, seen };
}

describe('readBody', () => {
  it('returns the bytes of a body within the limit', async () => {
    const { request } = streamed([new Uint8Array([1, 2]), new Uint8Array([3])]);
    expect(await readBody(request, 3)).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('refuses a body announced past the limit without reading it', async () => {
    const request = new Request('http://localhost/', { method: 'POST', body: 'x'.repeat(20), headers: { 'Content-Length': '20' } });
    expect(await readBody(request, 10)).toBe('too-large');
    expect(request.bodyUsed).toBe(false);
  });

  it('counts the bytes of a body without a length as they arrive, and stops at the first past the limit', async () => {
    const { request, seen } = streamed(Array.from({ length: 100 }, () => new Uint8Array(1024)));
    expect(await readBody(request, 4 * 1024)).toBe('too-large');
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThan(10);
  });

  it('reads an absent body as empty', async () => {
    expect(await readBody(new Request('http://localhost/', { method: 'POST' }), 10)).toEqual(new Uint8Array());
  });
});

describe('hasBody', () => {
  it.each([
    [{}, false],
    [{ 'content-length': '0' }, false],
    [{ 'content-length': '12' }, true],
    [{ 'transfer-encoding': 'chunked' }, true],
  ])('%j: %s', (headers, expected) => {
    expect(hasBody(headers)).toBe(expected);
  });
});
