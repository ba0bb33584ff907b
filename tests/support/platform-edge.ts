import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { pathToRegexp } from 'next/dist/compiled/path-to-regexp';
import { freePort, ROOT } from './site';

/**
 * A stand-in for a platform's edge (Vercel and the like) at the network
 * boundary, in front of Next.js instances run without lectern's server:
 * - it overwrites the client-address headers (`x-real-ip`, `x-forwarded-for`)
 *   with the address it was reached from, whatever the client sent, as such
 *   edges do;
 * - it spreads requests over the instances in turn;
 * - on the way back it applies the header rules of the project's vercel.json
 *   (a rule whose `source` matches the path sets its headers, unless the
 *   request has a header its `missing` names), as the platform applies them
 *   after the function's answer.
 */
export type PlatformEdge = { url: string; close: () => Promise<void> };

type Condition = { type: 'header'; key: string; value: string };
type Rule = { source: string; headers: { key: string; value: string }[]; missing?: Condition[] };

/** Whether a request has a header a rule's `missing` names: its value matches the condition's pattern whole. */
const present = (req: http.IncomingMessage, condition: Condition) => {
  const value = req.headers[condition.key.toLowerCase()];
  return typeof value === 'string' && new RegExp(`^(?:${condition.value})$`).test(value);
};

/** `port`: where the edge listens (a site whose URL is the edge's is started before it); a free one by default. */
export async function startPlatformEdge(upstreams: string[], port?: number): Promise<PlatformEdge> {
  const rules = (JSON.parse(fs.readFileSync(path.join(ROOT, 'vercel.json'), 'utf8')) as { headers?: Rule[] }).headers ?? [];
  const matchers = rules.map((rule) => ({ pattern: pathToRegexp(rule.source), headers: rule.headers, missing: rule.missing ?? [] }));
  let turn = 0;
  const server = http.createServer((req, res) => {
    const upstream = new URL(upstreams[turn++ % upstreams.length]!);
    const client = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    const headers = { ...req.headers, 'x-real-ip': client, 'x-forwarded-for': client, 'x-forwarded-proto': 'http', host: req.headers.host ?? upstream.host };
    const forwarded = http.request({ hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (answer) => {
      const pathname = (req.url ?? '/').split('?', 1)[0]!;
      const out = { ...answer.headers };
      for (const { pattern, headers: set, missing } of matchers) {
        if (!pattern.test(pathname) || missing.some((condition) => present(req, condition))) continue;
        for (const { key, value } of set) {
          for (const name of Object.keys(out)) if (name.toLowerCase() === key.toLowerCase()) delete out[name];
          out[key.toLowerCase()] = value;
        }
      }
      res.writeHead(answer.statusCode ?? 502, out);
      answer.pipe(res);
    });
    forwarded.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(forwarded);
  });
  const listening = port ?? (await freePort());
  await new Promise<void>((resolve) => server.listen(listening, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${listening}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
