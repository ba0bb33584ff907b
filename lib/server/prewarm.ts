import { createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { builtList } from '../content/published-set';
import { contentPaths } from '../content/urls';

type Render = (req: IncomingMessage, res: ServerResponse) => void;

/** The URLs of a post that a build generates for the newest posts: its page, its card and its markdown. */
export function postUrls(slug: string): string[] {
  const page = contentPaths.post(slug);
  return [page, `${page}/index.md`, `/api/blog/${slug}/markdown`, `${page}/opengraph-image`];
}

/** The posts the build left to their first request (past PRERENDER_POSTS), newest first. */
export function postsToPrewarm(): string[] {
  const list = builtList();
  return list ? list.slugs.slice(list.prerendered) : [];
}

/**
 * Generates, one request at a time, the posts the build left to their first request, so a
 * reader or crawler arriving later finds them made. The requests go to Next directly, through a
 * server of their own on a loopback port closed when done: they do not pass lectern's read cache,
 * which keeps what readers ask for, not everything. Stops at the first failure, which it logs
 * (a post that fails here fails for a reader too, and is logged then).
 */
export async function prewarm(render: Render, slugs: string[], log: (line: string) => void = console.log): Promise<void> {
  if (slugs.length === 0) return;
  const started = Date.now();
  log(`generating ${slugs.length} older posts in the background (PRERENDER_POSTS)`);
  try {
    await throughLoopback(render, async (fetchStatus) => {
      for (const slug of slugs) {
        for (const url of postUrls(slug)) {
          const status = await fetchStatus(url);
          if (status !== 200) throw new Error(`${url} answered ${status}`);
        }
      }
    });
    log(`generated ${slugs.length} older posts in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    log(`stopped generating older posts: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Runs `work` with a GET (status only) to `render` through a server on a loopback port, closed when done. */
async function throughLoopback<T>(render: Render, work: (fetchStatus: (url: string) => Promise<number>) => Promise<T>): Promise<T> {
  const server = createServer(render);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fetchStatus = (url: string) =>
    new Promise<number>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: url, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      }).on('error', reject);
    });
  try {
    return await work(fetchStatus);
  } finally {
    server.close();
  }
}
