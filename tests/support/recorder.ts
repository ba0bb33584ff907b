import http from 'node:http';
import { freePort } from './site';

export type Recorded = { method: string; path: string; headers: http.IncomingHttpHeaders; body: string };

export type Reply = { status: number; body: unknown } | 'drop';

/**
 * A local HTTP server standing in for a service we cannot reach (Stripe,
 * IndexNow): it records every request and answers with `reply`, or, for
 * `'drop'`, closes the connection without an answer (the service unreachable
 * mid-request).
 */
export async function startRecorder(reply: (request: Recorded, index: number) => Reply) {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(recorded);
      const answer = reply(recorded, requests.length);
      if (answer === 'drop') {
        req.socket.destroy();
        return;
      }
      const { status, body } = answer;
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Stripe's form encoding (`a[b][0][c]=d`) read back into a flat map of keys. */
export function stripeForm(body: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(body));
}
