import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DYNAMIC_PATHS } from '@/lib/content/built-paths';
import { copyContractBuild, freePort, ROOT, startSite, type RunningSite } from '../support/site';

/**
 * A client making up URLs under every dynamic segment of app/ (posts, tags, pages, twins,
 * feeds, cards, sitemaps, downloads) must cost the site nothing it keeps: no file under the
 * build folder, no memory that grows with the number of spellings, and no log line per
 * request. Measured on a copy of the contract build served by a server of this file's own,
 * so nothing another test does is counted.
 */

const MARK = 'floodzq';

/** Each dynamic segment, with `X` where the made-up value goes and `N` a page number; also a real tag's pages. */
const SEGMENTS = [...DYNAMIC_PATHS, '/tags/testing/page/N'];

/** The `index`th made-up value: short, or long (up to a few hundred characters, as a file name could not hold). */
function madeUp(index: number): string {
  const base = `${MARK}-${index}`;
  return index % 4 === 0 ? `${base}-${'long'.repeat(60 + (index % 90))}` : base;
}

function target(segment: string, index: number): string {
  // Page numbers past the last page, and page-number spellings that are not numbers.
  const page = index % 2 === 0 ? String(100 + index) : `${index}${MARK}`;
  return segment.replace('X', madeUp(index)).replace('N', page);
}

type Tally = Record<string, number>;

/** `count` requests per segment, `concurrency` at a time over keep-alive connections; the statuses seen. */
async function flood(baseUrl: string, segments: string[], from: number, count: number, options: { accept?: string } = {}): Promise<Tally> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const { hostname, port } = new URL(baseUrl);
  const jobs = segments.flatMap((segment) => Array.from({ length: count }, (_, index) => target(segment, from + index)));
  const statuses: Tally = {};
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const pathname = jobs[next++]!;
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.get({ hostname, port, path: pathname, agent, headers: options.accept ? { accept: options.accept } : {} }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
      });
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  agent.destroy();
  return statuses;
}

/** Files and bytes under a folder, and the files whose path holds MARK. */
function folderFacts(folder: string): { files: number; bytes: number; marked: string[] } {
  const facts = { files: 0, bytes: 0, marked: [] as string[] };
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (file.includes(MARK)) facts.marked.push(path.relative(folder, file));
      if (entry.isDirectory()) walk(file);
      else {
        facts.files += 1;
        facts.bytes += fs.statSync(file).size;
      }
    }
  };
  walk(folder);
  return facts;
}

/** The server process's resident memory in MiB, from the kernel. */
function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]) / 1024;
}

let copy: string;
let running: RunningSite;

beforeAll(async () => {
  copy = copyContractBuild(path.join(ROOT, inject('distDir')), 'made-up');
  running = await startSite({
    contentDir: inject('contentDir'),
    distDir: path.relative(ROOT, copy),
    siteUrl: inject('siteUrl'),
    port: await freePort(),
    // A small heap keeps the garbage collector close behind: the resident memory then measures what
    // is kept, not how lazily V8 grows its heap. The server holds about 125 MB once started, so the
    // cap leaves it some 64 MB to answer in: less than the 3,400 made-up values would take if kept.
    extraEnv: { POSTS_PER_PAGE: '1', PRERENDER_POSTS: '2', PREWARM: '0', NODE_OPTIONS: '--max-old-space-size=192' },
  });
});

afterAll(async () => {
  await running?.stop();
  if (copy) fs.rmSync(copy, { recursive: true, force: true });
});

describe('a flood of made-up URLs under every dynamic segment', () => {
  it('is answered 404, writes nothing under the build folder and leaves the memory of the server where it was', async () => {
    const pid = running.process.pid!;
    // Warm-up: every kind of answer has been made (Next keeps its one not-found page), and the
    // heap has grown to what answering needs.
    await flood(running.baseUrl, SEGMENTS, 0, 150);
    const before = folderFacts(copy);
    const settled = rssMiB(pid);
    const statuses = await flood(running.baseUrl, SEGMENTS, 1000, 200);
    const negotiated = await flood(running.baseUrl, ['/blog/X', '/tags/X'], 1000, 200, { accept: 'text/markdown' });
    expect(statuses).toEqual({ 404: SEGMENTS.length * 200 });
    expect(negotiated).toEqual({ 404: 400 });
    const after = folderFacts(copy);
    expect(after.marked).toEqual([]);
    expect(after.files).toBe(before.files);
    expect(after.bytes).toBe(before.bytes);
    // 3,400 spellings kept would be hundreds of MiB (or the heap's limit reached); what is allowed is the collector's slack.
    expect(rssMiB(pid) - settled).toBeLessThan(24);
  }, 240_000);

  it('logs nothing per request for a tag holding a NUL byte', async () => {
    const logged = running.output().split('\n').length;
    const statuses = await flood(running.baseUrl, ['/tags/a%00X', '/tags/a%00X.md', '/tags/a%00X/rss.xml', '/blog/a%00X', '/blog/a%00X.md'], 3000, 60);
    expect(Object.keys(statuses).every((status) => status.startsWith('4'))).toBe(true);
    expect(running.output().split('\n').length - logged).toBeLessThanOrEqual(5);
  }, 60_000);
});
