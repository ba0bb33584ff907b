// Reference (a) for reads: a bare node:http server answering each URL with the same
// bytes and Content-Type as lectern, from memory, and nothing else.
//   node bench/bare-server.mjs <manifest.json> <port> [--lectern-headers] [--with-next=<site dir>]
// Diagnostics (what bounds lectern's reads, one cause at a time):
//   --lectern-headers   send the full header set lectern sent: the cost of the header bytes alone
//   --with-next=<dir>   also load and prepare Next for the built site in <dir> (NEXT_DIST_DIR from the
//                       environment) and let it answer URLs not in the manifest, as lectern's server does:
//                       the cost of having Next in the process (its AsyncLocalStorage hooks every
//                       async resource once it has rendered anything)
import fs from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [manifestFile, portArg] = process.argv.slice(2);
const withLecternHeaders = process.argv.includes('--lectern-headers');
const nextDir = process.argv.find((arg) => arg.startsWith('--with-next='))?.slice('--with-next='.length);
const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
/** Node writes these itself for every response. */
const SET_BY_NODE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
const routes = new Map();
for (const target of manifest.targets) {
  const body = fs.readFileSync(path.join(manifest.root, target.file));
  const headers = withLecternHeaders
    ? [...target.lecternHeaders.filter(([name]) => !SET_BY_NODE.has(name)), ['content-length', String(body.length)]].flat()
    : ['content-type', target.contentType, 'content-length', String(body.length)];
  routes.set(target.path, { body, headers });
}

let fallback = (_req, res) => {
  res.writeHead(404, { 'content-length': '0' });
  res.end();
};
if (nextDir) {
  // The site's own copy of Next, as lectern's server loads it.
  const nextPath = createRequire(path.join(nextDir, 'package.json')).resolve('next');
  const { default: next } = await import(pathToFileURL(nextPath).href);
  const app = next({ dev: false, dir: nextDir, hostname: '127.0.0.1', port: Number(portArg) });
  const handle = app.getRequestHandler();
  await app.prepare();
  fallback = (req, res) => void handle(req, res);
}

const server = createServer((req, res) => {
  const route = routes.get(req.url);
  if (!route) return fallback(req, res);
  res.writeHead(200, route.headers);
  res.end(route.body);
});
server.listen(Number(portArg), '127.0.0.1');
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
