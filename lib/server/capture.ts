import type { OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { HeaderList } from './response-headers';

/**
 * The one interception of what Next writes to a response. When Next writes its
 * head (or its first bytes), `onHead` sees it and either sends a head at once and
 * lets the body through untouched, or holds the body back; a held response is
 * handed whole to `onEnd` when Next ends it, and the caller sends it.
 */

/** A head as Next wrote it: status, reason phrase and every header set on the response. */
export type CapturedHead = { status: number; reason: string | undefined; headers: HeaderList };

export type CaptureHandlers = {
  /** Returns the head to send now (the body then passes straight through), or undefined to hold the body. */
  onHead: (head: CapturedHead) => HeaderList | undefined;
  /** A held response, complete: the response is as it was before Next wrote to it, ready for the caller's head. */
  onEnd: (head: CapturedHead, body: Buffer) => void;
};

function toBuffer(chunk: unknown, encoding?: unknown): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  if (chunk instanceof Uint8Array) return Buffer.from(chunk);
  return Buffer.from(String(chunk), (typeof encoding === 'string' ? encoding : 'utf8') as BufferEncoding);
}

/**
 * Moves the reason phrase and headers given to `writeHead(status, ...rest)` onto the
 * response (a flat name/value list or an object), so one set holds them all; returns the reason.
 */
function applyWriteHeadArgs(res: ServerResponse, rest: unknown[]): string | undefined {
  let reason: string | undefined;
  for (const arg of rest) {
    if (typeof arg === 'string') reason = arg;
    else if (Array.isArray(arg)) {
      for (let i = 0; i + 1 < arg.length; i += 2) res.appendHeader(String(arg[i]), arg[i + 1] as string);
    } else if (arg && typeof arg === 'object') {
      for (const [name, value] of Object.entries(arg as OutgoingHttpHeaders)) if (value !== undefined) res.setHeader(name, value);
    }
  }
  return reason;
}

function headersOf(res: ServerResponse): HeaderList {
  return Object.entries(res.getHeaders())
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => [name, value as OutgoingHttpHeader]);
}

/** Writes a head given as a list, replacing whatever the response held. */
export function writeHead(res: ServerResponse, status: number, reason: string | undefined, headers: HeaderList): void {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  const flat = headers.flat();
  if (reason === undefined) res.writeHead(status, flat);
  else res.writeHead(status, reason, flat);
}

export function captureResponse(res: ServerResponse, handlers: CaptureHandlers): void {
  const original = { writeHead: res.writeHead, write: res.write, end: res.end, flushHeaders: res.flushHeaders };
  const chunks: Buffer[] = [];
  let held: { status: number; reason: string | undefined } | undefined;

  /** Next's head is complete: send a head and step aside, or hold the body. */
  const decide = (status: number, rest: unknown[]): void => {
    const reason = applyWriteHeadArgs(res, rest);
    const head = { status, reason, headers: headersOf(res) };
    const sent = handlers.onHead(head);
    if (sent === undefined) {
      held = { status, reason };
      return;
    }
    Object.assign(res, original);
    writeHead(res, status, reason, sent);
  };

  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    if (!held) decide(status, rest);
    return this;
  } as typeof res.writeHead;
  res.flushHeaders = function (this: ServerResponse) {
    if (!held) decide(this.statusCode, []);
    if (!held) this.flushHeaders();
  };
  res.write = function (this: ServerResponse, chunk: unknown, encoding?: unknown, callback?: unknown) {
    if (!held) decide(this.statusCode, []);
    if (!held) return (this.write as (...args: unknown[]) => boolean)(chunk, encoding, callback);
    if (chunk !== undefined && chunk !== null) chunks.push(toBuffer(chunk, encoding));
    const cb = typeof encoding === 'function' ? encoding : callback;
    if (typeof cb === 'function') queueMicrotask(() => (cb as () => void)());
    return true;
  } as typeof res.write;
  res.end = function (this: ServerResponse, chunk?: unknown, encoding?: unknown, callback?: unknown) {
    if (!held) decide(this.statusCode, []);
    if (!held) return (this.end as (...args: unknown[]) => ServerResponse)(chunk, encoding, callback);
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') chunks.push(toBuffer(chunk, encoding));
    Object.assign(res, original);
    const head = { ...held, headers: headersOf(res) };
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    handlers.onEnd(head, Buffer.concat(chunks));
    const cb = [chunk, encoding, callback].find((arg) => typeof arg === 'function');
    if (typeof cb === 'function') queueMicrotask(() => (cb as () => void)());
    return res;
  } as typeof res.end;
}
