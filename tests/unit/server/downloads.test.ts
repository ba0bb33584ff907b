import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendFile } from '@/lib/server/downloads';
import type { FileAnswer } from '@/lib/downloads/serve';
import { until } from '../../support/until';

const facts = { https: false, csp: true, variant: undefined, read: false };

/** A file of several of sendFile's chunks and a part of one, so reads and writes take turns many times. */
const SIZE = 3 * 256 * 1024 + 12_345;
/** Far more than loopback's socket buffers hold, so a client that stops reading holds the send back. */
const BIG = 64 * 2 ** 20;
let dir: string;
let file: string;
let big: string;
let bytes: Buffer;
let server: http.Server;
let base: string;
/** What each sendFile call ended with, by its request's URL: 'done' or the error it was rejected with. */
const outcomes = new Map<string, NodeJS.ErrnoException | 'done'>();

function answerFor(range?: { start: number; end: number }): FileAnswer {
  const start = range?.start ?? 0;
  const end = range?.end ?? SIZE - 1;
  return { file, status: range ? 206 : 200, start, end, headers: { 'Content-Type': 'application/zip', 'Content-Length': String(end - start + 1) } };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-send-file-'));
  file = path.join(dir, 'bundle.zip');
  bytes = randomBytes(SIZE);
  fs.writeFileSync(file, bytes);
  big = path.join(dir, 'big.zip');
  fs.writeFileSync(big, '');
  fs.truncateSync(big, BIG);
  server = http.createServer((req, res) => {
    const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    const answer = req.url?.startsWith('/big')
      ? { ...answerFor(), file: big, end: BIG - 1, headers: { 'Content-Length': String(BIG) } }
      : answerFor(range ? { start: Number(range[1]), end: Number(range[2]) } : undefined);
    sendFile(req, res, answer, facts).then(
      () => outcomes.set(req.url ?? '', 'done'),
      (error: NodeJS.ErrnoException) => outcomes.set(req.url ?? '', error),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('sendFile', () => {
  it('sends the whole file, byte for byte, with its head', async () => {
    const response = await fetch(`${base}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(SIZE));
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('sends a range that crosses chunks, and one inside a chunk', async () => {
    for (const [start, end] of [
      [200_000, 600_000],
      [10, 29],
      [SIZE - 5, SIZE - 1],
    ] as const) {
      const response = await fetch(`${base}/`, { headers: { Range: `bytes=${start}-${end}` } });
      expect(response.status).toBe(206);
      expect(Buffer.from(await response.arrayBuffer()).equals(bytes.subarray(start, end + 1))).toBe(true);
    }
  });

  it('stops when the client goes half-way, as a closed connection, not an error of its own', async () => {
    await new Promise<void>((resolve) => {
      const request = http.get(`${base}/big?gone`, (response) => {
        // One chunk in, the client stops reading, then goes.
        response.once('data', () => {
          response.pause();
          setImmediate(() => {
            request.destroy();
            resolve();
          });
        });
      });
      request.on('error', () => undefined);
    });
    await until(() => outcomes.has('/big?gone'), 'the send to end');
    expect((outcomes.get('/big?gone') as NodeJS.ErrnoException).code).toBe('ERR_STREAM_PREMATURE_CLOSE');
  });
});
