import type { IncomingMessage, ServerResponse } from 'node:http';
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { clock } from '../clock';
import { decideDownload, type FileAnswer } from '../downloads/serve';
import { DOWNLOADS_PATH } from '../downloads/links';
import type { Settings } from '../settings';
import type { Store } from '../services/store/types';
import { responseHead, type HeaderList, type RequestFacts } from './response-headers';

/** lectern's server answers a download link itself (never through the read cache, which would hold the bytes). */
export type DownloadReads = (req: IncomingMessage, pathname: string) => Promise<Response | FileAnswer> | undefined;

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function downloadReads(store: () => Store, settings: Pick<Settings, 'downloads' | 'site'>): DownloadReads {
  return (req, pathname) => {
    if (!pathname.startsWith(DOWNLOADS_PATH) || (req.method !== 'GET' && req.method !== 'HEAD')) return undefined;
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

/**
 * Streams a file's bytes with the head every response gets: read from disk a chunk at a time as
 * the client takes them (pipeline's backpressure), never whole into memory.
 */
export async function sendFile(req: IncomingMessage, res: ServerResponse, answer: FileAnswer, facts: RequestFacts): Promise<void> {
  const headers: HeaderList = Object.entries(answer.headers).map(([name, value]) => [name.toLowerCase(), value]);
  const head = responseHead(facts, { status: answer.status, headers });
  res.writeHead(answer.status, head.flat());
  if (req.method === 'HEAD' || answer.end < answer.start) {
    res.end();
    return;
  }
  await pipeline(fs.createReadStream(answer.file, { start: answer.start, end: answer.end, highWaterMark: 256 * 1024 }), res);
}
