// Page weight: the bytes a browser downloads for the home page and a post: the HTML, then
// every script, stylesheet, preload, font (also those the CSS names) and image the page
// refers to. Each as sent to a browser (Accept-Encoding: gzip, deflate, br, zstd) and
// uncompressed, and what gzip would make of it when it was sent uncompressed.
//   node bench/weight.mjs [--post=etags-and-conditional-requests]
import http from 'node:http';
import { gzipSync } from 'node:zlib';
import { cliOptions, ensureSiteBuilt, log, saveResult, startLectern } from './lib/common.mjs';

const options = cliOptions();
const POST = options.post ?? 'etags-and-conditional-requests';
const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';

function get(url, headers) {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          let headerBytes = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n`.length + 2;
          for (let i = 0; i < res.rawHeaders.length; i += 2) headerBytes += res.rawHeaders[i].length + 2 + Buffer.byteLength(res.rawHeaders[i + 1]) + 2;
          resolve({ status: res.statusCode, headers: res.headers, headerBytes, body: Buffer.concat(chunks) });
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

function attributes(tag) {
  const found = {};
  for (const match of tag.matchAll(/([a-zA-Z:-]+)\s*=\s*("([^"]*)"|'([^']*)'|([^\s>]+))/g))
    found[match[1].toLowerCase()] = (match[3] ?? match[4] ?? match[5] ?? '').replaceAll('&amp;', '&');
  return found;
}

function kindOf(url, contentType = '', as = '') {
  if (as === 'font' || /font|woff2?$|\.ttf$|\.otf$/.test(contentType) || /\.(woff2?|ttf|otf)(\?|$)/.test(url)) return 'font';
  if (as === 'style' || contentType.startsWith('text/css') || /\.css(\?|$)/.test(url)) return 'css';
  if (as === 'script' || /javascript/.test(contentType) || /\.m?js(\?|$)/.test(url)) return 'js';
  if (as === 'image' || contentType.startsWith('image/')) return 'image';
  return 'other';
}

/** What a browser would fetch for this HTML: scripts, stylesheets, preloads, images, icons. */
function references(html) {
  const found = [];
  for (const [tag] of html.matchAll(/<(script|link|img)\b[^>]*>/gi)) {
    const attrs = attributes(tag);
    const name = /^<(\w+)/.exec(tag)[1].toLowerCase();
    // A nomodule script is for browsers without ES modules; current browsers never fetch it.
    if (name === 'script' && attrs.src)
      found.push({ url: attrs.src, as: 'script', skipped: 'nomodule' in attrs ? 'nomodule: for legacy browsers only' : undefined });
    if (name === 'img' && attrs.src) found.push({ url: attrs.src, as: 'image', lazy: attrs.loading === 'lazy' });
    if (name === 'link' && attrs.href) {
      const rel = (attrs.rel ?? '').toLowerCase().split(/\s+/);
      if (rel.includes('stylesheet')) found.push({ url: attrs.href, as: 'style' });
      else if (rel.includes('preload') || rel.includes('modulepreload')) found.push({ url: attrs.href, as: attrs.as ?? 'script' });
      else if (rel.includes('icon') || rel.includes('apple-touch-icon')) found.push({ url: attrs.href, as: 'image', icon: true });
    }
  }
  return found;
}

async function weigh(baseUrl, pagePath) {
  const resources = [];
  const seen = new Set();
  async function fetchOne(url, meta) {
    const absolute = new URL(url, `${baseUrl}${pagePath}`);
    if (absolute.origin !== baseUrl) return; // only what the site itself serves
    const key = absolute.pathname + absolute.search;
    if (seen.has(key)) return;
    seen.add(key);
    const wire = await get(absolute.href, { 'accept-encoding': BROWSER_ENCODINGS, accept: meta.as === 'document' ? 'text/html' : '*/*' });
    const plain = await get(absolute.href, { accept: meta.as === 'document' ? 'text/html' : '*/*' });
    const contentType = String(plain.headers['content-type'] ?? '');
    const encoding = wire.headers['content-encoding'] ?? 'identity';
    resources.push({
      path: key,
      kind: meta.as === 'document' ? 'html' : kindOf(key, contentType, meta.as),
      status: plain.status,
      contentType,
      encoding,
      lazy: Boolean(meta.lazy),
      transferredBytes: wire.body.length,
      headerBytes: wire.headerBytes,
      uncompressedBytes: plain.body.length,
      gzipBytes: gzipSync(plain.body, { level: 6 }).length,
      cacheControl: plain.headers['cache-control'],
    });
    if (contentType.startsWith('text/css')) {
      for (const match of plain.body.toString('utf8').matchAll(/url\(\s*['"]?([^'")]+)['"]?\s*\)/g)) {
        if (!match[1].startsWith('data:')) await fetchOne(new URL(match[1], absolute).href, { as: kindOf(match[1]) === 'font' ? 'font' : 'image' });
      }
    }
    return plain;
  }
  const page = await fetchOne(pagePath, { as: 'document' });
  const skipped = [];
  for (const ref of references(page.body.toString('utf8'))) {
    if (ref.skipped) {
      const response = await get(new URL(ref.url, `${baseUrl}${pagePath}`).href, { 'accept-encoding': BROWSER_ENCODINGS });
      skipped.push({ path: ref.url, why: ref.skipped, transferredBytes: response.body.length });
      continue;
    }
    await fetchOne(ref.url, ref);
  }
  const totals = {};
  for (const resource of resources) {
    const total = (totals[resource.kind] ??= { files: 0, transferredBytes: 0, uncompressedBytes: 0, gzipBytes: 0 });
    total.files += 1;
    total.transferredBytes += resource.transferredBytes;
    total.uncompressedBytes += resource.uncompressedBytes;
    total.gzipBytes += Math.min(resource.gzipBytes, resource.transferredBytes);
  }
  const all = Object.values(totals).reduce(
    (sum, total) => ({
      files: sum.files + total.files,
      transferredBytes: sum.transferredBytes + total.transferredBytes,
      uncompressedBytes: sum.uncompressedBytes + total.uncompressedBytes,
      gzipBytes: sum.gzipBytes + total.gzipBytes,
    }),
    { files: 0, transferredBytes: 0, uncompressedBytes: 0, gzipBytes: 0 },
  );
  return { path: pagePath, totals, all, headerBytes: resources.reduce((sum, resource) => sum + resource.headerBytes, 0), resources, skipped };
}

async function main() {
  const { distDir } = await ensureSiteBuilt();
  const lectern = await startLectern({ distDir, cpu: 0 });
  try {
    const pages = [];
    for (const [label, pagePath] of [
      ['home', '/'],
      ['post', `/blog/${POST}`],
    ]) {
      const weighed = await weigh(lectern.baseUrl, pagePath);
      pages.push({ label, ...weighed });
      log(
        `${label} ${pagePath}: ${weighed.all.files} files, ${(weighed.all.transferredBytes / 1024).toFixed(1)} KiB transferred, ${(weighed.all.uncompressedBytes / 1024).toFixed(1)} KiB uncompressed`,
      );
      for (const resource of weighed.resources)
        log(
          `   ${resource.kind.padEnd(5)} ${String(resource.transferredBytes).padStart(7)} B ${resource.encoding.padEnd(8)} ${String(resource.uncompressedBytes).padStart(7)} B  ${resource.path}`,
        );
    }
    saveResult('weight', { acceptEncoding: BROWSER_ENCODINGS, pages });
  } finally {
    await lectern.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
