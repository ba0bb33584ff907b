import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../support/site';
import { baseUrl } from './browser';

export type TemplatePage = { template: string; path: string; status: number };

const APP = path.join(ROOT, 'app');

/** Every `page.tsx` under app/, as a route pattern such as `/blog/[slug]`. */
export function pageTemplates(dir = APP, prefix = ''): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    // Route groups (name) add no URL segment; private folders (_name) and parallel slots (@name) are not pages here.
    const segment = /^\(.*\)$/.test(entry.name) ? '' : `/${entry.name}`;
    if (entry.name.startsWith('_') || entry.name.startsWith('@')) continue;
    found.push(...pageTemplates(path.join(dir, entry.name), `${prefix}${segment}`));
  }
  if (fs.existsSync(path.join(dir, 'page.tsx'))) found.push(prefix || '/');
  return found.sort();
}

/**
 * The post that shows the most of what a post can hold (highlighted code, a
 * table, an image, tags), newest first among equals: the sample post of the
 * browser tests and Lighthouse. Read from the built site, so it always exists.
 */
export async function richestPost(): Promise<string> {
  const { posts } = (await (await fetch(`${baseUrl()}/api/blog`)).json()) as { posts: { slug: string }[] };
  if (posts.length === 0) throw new Error('the e2e site has no published post');
  let best = { slug: posts[0]!.slug, score: -1 };
  for (const { slug } of posts) {
    const html = await (await fetch(`${baseUrl()}/blog/${slug}`)).text();
    const score = ['class="shiki', '<table', '<img', 'href="/tags/'].filter((marker) => html.includes(marker)).length;
    if (score > best.score) best = { slug, score };
  }
  return `/blog/${best.slug}`;
}

/** Where a list page's `rel="next"` link leads, if it has one. */
async function nextPage(pathname: string): Promise<string | undefined> {
  const html = await (await fetch(`${baseUrl()}${pathname}`)).text();
  return /<a [^>]*rel="next"[^>]*>/.exec(html)?.[0].match(/href="([^"]+)"/)?.[1];
}

/** Sample values for dynamic segments. */
async function samples(): Promise<Record<string, string>> {
  const post = await richestPost();
  const html = await (await fetch(`${baseUrl()}${post}`)).text();
  const tag = /href="\/tags\/([^"/]+)"/.exec(html)?.[1];
  if (!tag) throw new Error(`no tag link on ${post}`);
  const blogPage = await nextPage('/blog');
  if (!blogPage) throw new Error('/blog has no second page: the e2e site is built with a small POSTS_PER_PAGE so that it does');
  // The tag with the most posts is listed first on /blog.
  const biggestTag = /<ul class="tags"[^>]*><li><a href="(\/tags\/[^"]+)"/.exec(await (await fetch(`${baseUrl()}/blog`)).text())?.[1];
  const tagPage = biggestTag && (await nextPage(biggestTag));
  if (!tagPage) throw new Error(`${biggestTag ?? 'the biggest tag'} has no second page`);
  return { '/blog/[slug]': post, '/tags/[tag]': `/tags/${tag}`, '/blog/page/[page]': blogPage, '/tags/[tag]/page/[page]': tagPage };
}

/** Templates that, visited without the query a buyer's link carries, answer with their own 404 page: the checkout's success page names a paid order, and without one says it cannot find it. */
const ANSWER_404 = new Set(['/checkout/success']);

/**
 * One URL for every page template of the app, plus the not-found page. A new
 * dynamic route fails here until it has a sample, so no template goes untested.
 */
export async function templatePages(): Promise<TemplatePage[]> {
  const sample = await samples();
  const pages = pageTemplates().map((template) => {
    if (!template.includes('[')) return { template, path: template, status: ANSWER_404.has(template) ? 404 : 200 };
    const pathname = sample[template];
    if (!pathname) throw new Error(`no sample URL for the page template ${template}: add one in tests/e2e/support/pages.ts`);
    return { template, path: pathname, status: 200 };
  });
  return [...pages, { template: 'not-found', path: '/no-such-page-here', status: 404 }];
}
