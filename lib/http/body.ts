/** Whether a request carries a body: a Content-Length above 0, or any Transfer-Encoding. */
export function hasBody(headers: { 'content-length'?: string; 'transfer-encoding'?: string }): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) !== 0;
}

/**
 * The one reader of request bodies: at most `limit` bytes, counted as they
 * arrive (a chunked body has no length to check first), refusing as soon as
 * the body grows past the limit and without reading the rest.
 */
export async function readBody(request: Request, limit: number): Promise<Uint8Array | 'too-large'> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) return 'too-large';
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return 'too-large';
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** Bytes of request bodies lectern's server lets arrive at once, across every route (README, "Slow and idle clients"). */
export const BODIES_IN_FLIGHT_BYTES = 64 * 1024 * 1024;

/**
 * The bound on bodies in flight: each request with a body holds, from its head until its answer
 * is sent, the bytes it may bring (its Content-Length, at most its route's limit; a chunked body
 * its route's limit). One that would take the total past `maxBytes` is refused before any of it is
 * read; what a request held is given back once it is answered or its connection closes.
 */
export function bodiesInFlight(maxBytes: number = BODIES_IN_FLIGHT_BYTES) {
  let held = 0;
  return {
    /** Holds the room for a body of `bytes`, or undefined when there is none; the function it returns gives it back (once). */
    hold(bytes: number): (() => void) | undefined {
      if (held + bytes > maxBytes) return undefined;
      held += bytes;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held -= bytes;
      };
    },
    get held(): number {
      return held;
    },
  };
}

export type BodiesInFlight = ReturnType<typeof bodiesInFlight>;

/** The bytes a request's body may bring to a route that reads at most `limit`: its Content-Length if smaller (one over the limit is refused unread). */
export function bodyBytesToHold(headers: { 'content-length'?: string }, limit: number): number {
  const declared = headers['content-length'] === undefined ? NaN : Number(headers['content-length']);
  if (!Number.isFinite(declared) || declared < 0) return limit;
  return declared > limit ? 0 : declared;
}
