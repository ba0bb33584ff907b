import { createServer, request, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Render = (req: IncomingMessage, res: ServerResponse) => void;

/** A GET sent to the loopback server: its status and body. */
export type LoopbackGet = (path: string, headers?: OutgoingHttpHeaders) => Promise<{ status: number; body: string }>;

/**
 * Runs `work` with requests that go to `render` (Next's handler) through a server of their own,
 * on a loopback port that is closed when `work` ends: the server's own requests to Next (the
 * posts generated in the background, the scheduler's calls) do not pass lectern's read cache
 * and are reachable from no other machine.
 */
export async function withLoopback<T>(render: Render, work: (get: LoopbackGet) => Promise<T>): Promise<T> {
  const server = createServer(render);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const get: LoopbackGet = (path, headers = {}) =>
    new Promise((resolve, reject) => {
      request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      })
        .on('error', reject)
        .end();
    });
  try {
    return await work(get);
  } finally {
    server.close();
  }
}
