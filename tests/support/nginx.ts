import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { FIXTURE_CONTENT, freePort, ROOT } from './site';

/**
 * deploy/nginx.conf, run by Debian's nginx in front of a test's lectern instances. The file is
 * rendered with the test's ports: its one upstream server becomes the first instance and, with a
 * second instance, its commented second server line is uncommented with that port (as the file
 * tells an operator to), `listen 80` becomes a loopback port, and a copy of the server block
 * listens on a second port with `X-Forwarded-Proto https`, standing in for the commented TLS
 * server (no certificate here). Each response also names the instance nginx chose (X-Upstream, the
 * test's own header); what the cache did is the shipped file's X-Cache-Status. The cache folder is
 * the test's own. The internal location of the download links serves the deliverables folder of
 * the content the instances run with.
 */
const TEMPLATE = fs.readFileSync(path.join(ROOT, 'deploy/nginx.conf'), 'utf8');
const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx'].find((file) => fs.existsSync(file)) ?? 'nginx';

function serverBlock(config: string): string {
  const start = config.indexOf('\nserver {');
  const end = config.indexOf('\n}\n', start);
  if (start < 0 || end < 0) throw new Error('deploy/nginx.conf has no server block');
  return config.slice(start + 1, end + 2);
}

/** The instances nginx proxies to: one, as the file ships, or two. */
export type Upstreams = [number] | [number, number];

export function renderNginxConfig(options: { upstreams: Upstreams; httpPort: number; httpsPort: number; dir: string; deliverables?: string }): string {
  const cache = path.join(options.dir, 'cache');
  const deliverables = options.deliverables ?? path.join(FIXTURE_CONTENT, 'deliverables');
  const [first, second] = options.upstreams;
  if (!/\n {4}server 127\.0\.0\.1:3000;\n {4}# server 127\.0\.0\.1:3001;\n/.test(TEMPLATE))
    throw new Error('deploy/nginx.conf no longer ships one upstream server with a commented second');
  let site = TEMPLATE.replace('server 127.0.0.1:3000;', `server 127.0.0.1:${first};`)
    .replace('# server 127.0.0.1:3001;', second === undefined ? '# server 127.0.0.1:3001;' : `server 127.0.0.1:${second};`)
    .replace('proxy_cache_path /var/cache/nginx/lectern ', `proxy_cache_path ${cache} `)
    .replaceAll('alias /srv/lectern/content/deliverables/;', `alias ${deliverables}/;`);
  const block = serverBlock(site);
  const http = block
    .replace(/\n\s*listen \[::\]:80;/, '')
    .replace('listen 80;', `listen 127.0.0.1:${options.httpPort};`)
    .replaceAll('proxy_pass http://lectern;', 'proxy_pass http://lectern;\n        add_header X-Upstream $upstream_addr always;');
  // The stand-in for the TLS server is plain http: it says https wherever the real one's $scheme would.
  const https = http.replace(`listen 127.0.0.1:${options.httpPort};`, `listen 127.0.0.1:${options.httpsPort};`).replaceAll('$scheme', 'https');
  if (http === block || !https.includes('X-Forwarded-Proto https;') || site.includes('/var/cache/nginx/lectern') || site.includes('/srv/lectern/'))
    throw new Error('deploy/nginx.conf no longer has the lines this test replaces');
  site = site.replace(block, `${http}\n${https}`);
  const temp = (name: string) => path.join(options.dir, name);
  return `error_log ${temp('error.log')} warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path ${temp('client')};
    proxy_temp_path ${temp('proxy')};
    fastcgi_temp_path ${temp('fastcgi')};
    uwsgi_temp_path ${temp('uwsgi')};
    scgi_temp_path ${temp('scgi')};
${site}
}
`;
}

async function waitForPort(port: number, nginx: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited ${nginx.exitCode}\n${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(true));
      socket.on('error', () => resolve(false));
      socket.on('connect', () => socket.end());
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port}\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `cacheDir`: nginx's proxy_cache folder, the test's own. */
export type RunningNginx = { http: string; https: string; cacheDir: string; log: () => string; stop: () => Promise<void> };

/**
 * deploy/nginx.conf in front of the instances on these ports, listening on two loopback ports of its own.
 * `deliverables`: the folder its download location serves (the fixture content's by default).
 */
export async function startNginx(upstreams: Upstreams, options: { deliverables?: string } = {}): Promise<RunningNginx> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-nginx-'));
  // nginx's workers may run as another user (www-data) when the test runs as root.
  fs.chmodSync(dir, 0o777);
  const [httpPort, httpsPort] = [await freePort(), await freePort()];
  const config = path.join(dir, 'nginx.conf');
  fs.writeFileSync(config, renderNginxConfig({ upstreams, httpPort, httpsPort, dir, deliverables: options.deliverables }));
  const nginx = spawn(NGINX, ['-c', config, '-p', dir, '-g', `daemon off; pid ${path.join(dir, 'nginx.pid')};`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  nginx.stdout?.on('data', (chunk) => (output += chunk));
  nginx.stderr?.on('data', (chunk) => (output += chunk));
  const log = () => `${output}${fs.existsSync(path.join(dir, 'error.log')) ? fs.readFileSync(path.join(dir, 'error.log'), 'utf8') : ''}`;
  await waitForPort(httpPort, nginx, log);
  await waitForPort(httpsPort, nginx, log);
  return {
    http: `http://127.0.0.1:${httpPort}`,
    https: `http://127.0.0.1:${httpsPort}`,
    cacheDir: path.join(dir, 'cache'),
    log,
    stop: async () => {
      if (nginx.exitCode === null) {
        const exited = new Promise((resolve) => nginx.once('exit', resolve));
        nginx.kill('SIGQUIT');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
