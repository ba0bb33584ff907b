import type { IncomingMessage, ServerResponse } from 'node:http';
import fs from 'node:fs';
import { clock } from '../runtime/site';
import { decideDownload, type FileAnswer } from '../downloads/serve';
import { isDownloadPath } from '../downloads/links';
import type { Settings } from '../settings';
import type { Store } from '../services/store/types';
import { responseHead, type HeaderList, type RequestFacts } from './response-headers';

/** lectern's server answers a download link itself (never through the read cache, which would hold the bytes). */
export type DownloadReads = (req: IncomingMessage, pathname: string) => Promise<Response | FileAnswer> | undefined;

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function downloadReads(store: () => Store, settings: Pick<Settings, 'downloads' | 'site'>): DownloadReads {
  return (req, pathname) => {
    if (!isDownloadPath(pathname) || (req.method !== 'GET' && req.method !== 'HEAD')) return undefined;
    return decideDownload(
      {
        method: req.method,
        url: new URL(req.url ?? '/', 'http://localhost'),
        range: header(req.headers.range),
        ifRange: header(req.headers['if-range']),
        accept: header(req.headers.accept),
      },
      { store: store(), downloads: settings.downloads, contentDir: settings.site.contentDir, now: clock() },
    );
  };
}

/** The bytes read from disk at a time, into one of a download's two buffers. */
const CHUNK_BYTES = 256 * 1024;

/** Writes a chunk and resolves once the socket has taken it (its buffer may then be filled again); rejects when the client has gone. */
function written(res: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const gone = (cause?: Error | null) =>
      reject(Object.assign(new Error('the client closed the connection', { cause }), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    if (res.destroyed) return gone();
    const closed = () => gone();
    res.once('close', closed);
    res.write(chunk, (error) => {
      res.off('close', closed);
      // A write fails only when the connection does (ECONNRESET, EPIPE): the client went, which is no failure of the server.
      if (error) return gone(error);
      resolve();
    });
  });
}

/**
 * Streams a file's bytes with the head every response gets, never whole in memory and without
 * garbage: each download reads into two buffers of its own in turn, the next chunk read from disk
 * while the socket takes the last, and a buffer is filled again only once the socket has taken it
 * (so a slow client holds the read back). Twenty downloads at once hold 10 MiB of buffers, and
 * no chunk leaves garbage behind (BENCHMARKS.md, "Downloads").
 */
export async function sendFile(req: IncomingMessage, res: ServerResponse, answer: FileAnswer, facts: RequestFacts): Promise<void> {
  const headers: HeaderList = Object.entries(answer.headers).map(([name, value]) => [name.toLowerCase(), value]);
  const head = responseHead(facts, { status: answer.status, headers });
  res.writeHead(answer.status, head.flat());
  if (req.method === 'HEAD' || answer.end < answer.start) {
    res.end();
    return;
  }
  const file = await fs.promises.open(answer.file, 'r');
  try {
    const buffers = [Buffer.allocUnsafe(CHUNK_BYTES), Buffer.allocUnsafe(CHUNK_BYTES)] as const;
    let position = answer.start;
    let turn = 0;
    let sending: Promise<void> = Promise.resolve();
    while (position <= answer.end) {
      const buffer = buffers[turn]!;
      const { bytesRead } = await file.read(buffer, 0, Math.min(CHUNK_BYTES, answer.end - position + 1), position);
      if (bytesRead === 0) throw new Error(`${answer.file} ended before byte ${position}`);
      position += bytesRead;
      // The other buffer's write has to be done before this one is handed over (and before that buffer is read into).
      await sending;
      sending = written(res, buffer.subarray(0, bytesRead));
      // Awaited at the next turn; a client that goes meanwhile is no unhandled rejection.
      sending.catch(() => undefined);
      turn = 1 - turn;
    }
    await sending;
    res.end();
  } finally {
    await file.close();
  }
}
