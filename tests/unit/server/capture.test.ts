import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { captureResponse, writeHead, type CapturedHead } from '@/lib/server/capture';
import type { HeaderList } from '@/lib/server/response-headers';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/**
 * A server whose `next` writes a response through the capture: `hold` decides whether the
 * body is held; a held response is sent by the test with the head it was handed, plus `x-held`.
 */
async function serve(next: (res: ServerResponse) => void, hold: boolean) {
  const seen: { head?: CapturedHead; body?: Buffer } = {};
  server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    captureResponse(res, {
      onHead: (head) => {
        seen.head = head;
        return hold ? undefined : [...head.headers, ['x-head', 'sent']];
      },
      onEnd: (head, body) => {
        seen.head = head;
        seen.body = body;
        const headers: HeaderList = [...head.headers.filter(([name]) => name !== 'content-length'), ['x-held', String(body.length)]];
        writeHead(res, head.status, head.reason, headers);
        res.end(body);
      },
    });
    next(res);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const response = await fetch(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/`);
  return { response, text: await response.text(), seen };
}

describe("the capture of Next's response", () => {
  it('holds a body written in pieces of every kind, and hands over the status, reason and every header given to writeHead', async () => {
    const { response, text, seen } = await serve((res) => {
      res.setHeader('x-set', 'before');
      res.writeHead(201, 'Made', { 'Content-Type': 'text/plain; charset=utf-8', 'X-Object': 'yes' });
      res.write('one ');
      res.write(Buffer.from('two '));
      res.write(new Uint8Array([116, 104, 114, 101, 101]));
      res.end(' four');
    }, true);
    expect(response.status).toBe(201);
    expect(response.statusText).toBe('Made');
    expect(text).toBe('one two three four');
    expect(response.headers.get('x-held')).toBe('18');
    expect(response.headers.get('x-set')).toBe('before');
    expect(response.headers.get('x-object')).toBe('yes');
    expect(seen.head?.headers).toEqual(expect.arrayContaining([['content-type', 'text/plain; charset=utf-8']]));
  });

  it('hands over headers given to writeHead as a flat list', async () => {
    const { response, text } = await serve((res) => {
      res.writeHead(404, ['X-Flat', 'a', 'X-Flat-Two', 'b']);
      res.end('gone');
    }, true);
    expect(response.status).toBe(404);
    expect(response.headers.get('x-flat')).toBe('a');
    expect(response.headers.get('x-flat-two')).toBe('b');
    expect(text).toBe('gone');
  });

  it('takes the status set on the response when Next ends it without writeHead', async () => {
    const { response, text } = await serve((res) => {
      res.statusCode = 410;
      res.end('no head');
    }, true);
    expect(response.status).toBe(410);
    expect(text).toBe('no head');
  });

  it('sends the head it is given at once and lets the body through untouched', async () => {
    const { response, text, seen } = await serve((res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"a":');
      res.end('1}');
    }, false);
    expect(response.headers.get('x-head')).toBe('sent');
    expect(response.headers.get('x-held')).toBeNull();
    expect(text).toBe('{"a":1}');
    expect(seen.body).toBeUndefined();
  });
});
