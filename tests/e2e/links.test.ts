import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, launch, newContext } from './support/browser';

let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

type Visited = { status: number; location?: string; html: boolean; ids?: Set<string> };
type Reference = { from: string; to: string };

const MAX_URLS = 5000;

/** Links, images, scripts, stylesheets and social images of a page as served (no JavaScript), and its anchor targets. */
async function readPage(page: Page, address: string): Promise<{ references: string[]; ids: string[] }> {
  await page.goto(address, { waitUntil: 'domcontentloaded' });
  return page.evaluate(() => {
    const references: string[] = [];
    for (const element of document.querySelectorAll<HTMLElement>('a[href], area[href], link[href], img[src], script[src], source[src], iframe[src]')) {
      const rel = element.getAttribute('rel') ?? '';
      if (element.tagName === 'LINK' && /\b(preconnect|dns-prefetch)\b/.test(rel)) continue;
      references.push((element as HTMLAnchorElement).href || (element as HTMLImageElement).src);
    }
    for (const element of document.querySelectorAll('img[srcset], source[srcset]')) {
      for (const candidate of (element.getAttribute('srcset') ?? '').split(',')) {
        const address = candidate.trim().split(/\s+/)[0];
        if (address) references.push(new URL(address, document.baseURI).href);
      }
    }
    for (const meta of document.querySelectorAll('meta[property="og:image"], meta[property="og:url"], meta[name="twitter:image"]')) {
      const content = meta.getAttribute('content');
      if (content) references.push(new URL(content, document.baseURI).href);
    }
    const ids = [...document.querySelectorAll('[id]')].map((element) => element.id);
    ids.push(...[...document.querySelectorAll('a[name]')].map((element) => element.getAttribute('name') ?? ''));
    return { references, ids };
  });
}

/** URLs named by the site's other documents: the sitemap, llms.txt, the RSS feed and the JSON list. */
async function seeds(origin: string): Promise<string[]> {
  const text = async (pathname: string) => {
    const response = await fetch(`${origin}${pathname}`);
    expect(response.status, pathname).toBe(200);
    return response.text();
  };
  const sitemap = [...(await text('/sitemap.xml')).matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!);
  const llms = [...(await text('/llms.txt')).matchAll(/\]\((\S+?)\)/g)].map((match) => new URL(match[1]!, origin).href);
  const rss = [...(await text('/api/rss')).matchAll(/<link>([^<]+)<\/link>/g)].map((match) => match[1]!);
  const { posts } = JSON.parse(await text('/api/blog')) as { posts: { url: string; markdownUrl: string }[] };
  return ['/', ...sitemap, ...llms, ...rss, ...posts.flatMap((post) => [post.url, post.markdownUrl])].map((address) => new URL(address, origin).href);
}

describe('links', () => {
  it('every internal link, image, script, stylesheet and #anchor of the built site resolves', async () => {
    const origin = new URL(baseUrl()).origin;
    const context = await newContext(browser, { javaScriptEnabled: false });
    const page = await context.newPage();
    const visited = new Map<string, Visited>();
    const references: Reference[] = [];
    const queue = (await seeds(origin)).map((to) => ({ from: '(site files)', to }));
    const broken: string[] = [];

    while (queue.length > 0) {
      const { from, to } = queue.shift()!;
      const target = new URL(to);
      if (target.origin !== origin) continue;
      references.push({ from, to: target.href });
      target.hash = '';
      const address = target.href;
      if (visited.has(address)) continue;
      if (visited.size >= MAX_URLS) throw new Error(`more than ${MAX_URLS} URLs: is something generating links?`);

      const response = await fetch(address, { redirect: 'manual' });
      await response.arrayBuffer();
      const html = (response.headers.get('content-type') ?? '').startsWith('text/html');
      const entry: Visited = { status: response.status, location: response.headers.get('location') ?? undefined, html };
      visited.set(address, entry);

      if (entry.status >= 300 && entry.status < 400 && entry.location) {
        // A redirect is fine when it leads somewhere that works (another site is not checked: no network here).
        queue.push({ from: address, to: new URL(entry.location, address).href });
      } else if (entry.status !== 200) {
        broken.push(`${address} answered ${entry.status} (linked from ${from})`);
      } else if (html) {
        const { references: found, ids } = await readPage(page, address);
        entry.ids = new Set(ids);
        for (const reference of found) {
          if (/^(mailto|tel):/.test(reference)) continue;
          if (/^javascript:/i.test(reference)) broken.push(`${address} links to ${reference}`);
          else queue.push({ from: address, to: reference });
        }
      }
    }

    for (const { from, to } of references) {
      const { hash } = new URL(to);
      if (hash.length <= 1) continue;
      const document = new URL(to);
      document.hash = '';
      const entry = visited.get(document.href);
      const id = decodeURIComponent(hash.slice(1));
      if (!entry?.ids) broken.push(`${from} links to ${to}, but ${document.href} is not a page with anchors`);
      else if (!entry.ids.has(id)) broken.push(`${from} links to ${to}: no element with id "${id}"`);
    }

    expect(broken).toEqual([]);
    const pages = [...visited.values()].filter((entry) => entry.html).length;
    expect(pages).toBeGreaterThan(20);
    expect(references.filter((reference) => new URL(reference.to).hash.length > 1).length).toBeGreaterThan(20);
    await context.close();
  });
});
