import fs from 'node:fs';
import path from 'node:path';
import { pageCount } from './pagination';
import { nodeEnv, settings } from '../settings';

/**
 * The posts a build holds (and their tags, and its apps), written by the build into its own
 * folder and read by the started site: every post that is not a draft, those already published
 * and those dated ahead, each with its date and tags. Which of them are live is decided against
 * the clock on every request (`liveView`), so a post dated ahead goes live at its time with no
 * rebuild, and so do the tags and pages only it fills: what exists is counted from the live posts,
 * never from the build's, so a value only a scheduled post fills is unknown until its time.
 * Posts past PRERENDER_POSTS are generated on their first request; this list is what keeps that
 * to the build's posts: a slug not on it, or not due yet, is a 404 before any rendering (and
 * before Next would keep a 404 page for it), and a post file added or re-dated after the build
 * waits for the next build.
 */
function file(): string {
  return path.join(settings().build.distDir, 'lectern', 'published.json');
}

export const building = () => settings().build.running;
let recorded = false;

export type PublishedSet = {
  /** Every post of the build that is not a draft, newest first. */
  slugs: string[];
  /** Their dates, epoch milliseconds, in the same order. */
  dates: number[];
  /** The moment of the build (LECTERN_BUILD_TIME): the posts dated no later were published when it ran. */
  builtAt: number;
  /** How many of the posts published at build the build generated (PRERENDER_POSTS then). */
  prerendered: number;
  /** Each post's tags (their URL slugs, each once), in the same order. */
  postTags: string[][];
  /** Every desktop app's slug. */
  apps: string[];
};

/** Called by the build (every generateStaticParams goes through it): writes the list once per worker. */
export function recordPublishedSet(list: () => PublishedSet): void {
  if (recorded || !building()) return;
  recorded = true;
  const target = file();
  fs.mkdirSync(path.dirname(target), { recursive: true });
  // Each build worker writes the same list; a rename keeps a reader from seeing half of one.
  const temporary = `${target}.${process.pid}`;
  fs.writeFileSync(temporary, JSON.stringify(list()));
  fs.renameSync(temporary, target);
}

/** What exists at one moment: the live posts, and the pages and tags they fill. */
export type LiveView = {
  /** The build's posts whose time has come. */
  slugs: ReadonlySet<string>;
  /** How many pages /blog fills with them. */
  blogPages: number;
  /** The tags they carry, each with how many pages its list fills. */
  tagPages: ReadonlyMap<string, number>;
};

type Read = { list?: PublishedSet; all?: ReadonlySet<string>; due?: { index: number; view: LiveView } };
let read: Read | undefined;

/** What the build recorded, or undefined where no build wrote it (see builtSlugs). */
export function builtList(): PublishedSet | undefined {
  if (building() || nodeEnv() === 'development') return undefined;
  if (!read) {
    try {
      const list = JSON.parse(fs.readFileSync(file(), 'utf8')) as PublishedSet;
      read = { list, all: new Set(list.slugs) };
    } catch {
      read = {};
    }
  }
  return read.list;
}

/**
 * Every post of the build (published or dated ahead), or undefined during a build, in
 * development, or where no build wrote the list (a test loading the modules on their own):
 * then every loaded post counts.
 */
export function builtSlugs(): ReadonlySet<string> | undefined {
  builtList();
  return read?.all;
}

/** How many of `dates` (newest first) are still ahead of `now`: the due posts are the ones after them. */
export function aheadCount(dates: readonly number[], now: number): number {
  let low = 0;
  let high = dates.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((dates[middle] ?? 0) > now) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * What is live at `now` (undefined where builtSlugs is): the build's posts whose time has come, and
 * the blog pages and tags (with their pages) those posts fill, no more. The same object while no
 * post comes due, so what is derived from it is made once per change.
 */
export function liveView(now: number): LiveView | undefined {
  const list = builtList();
  if (!list || !read) return undefined;
  const index = aheadCount(list.dates, now);
  if (read.due?.index !== index) read.due = { index, view: viewOf(list, index, settings().site.postsPerPage) };
  return read.due.view;
}

function viewOf(list: PublishedSet, ahead: number, perPage: number): LiveView {
  const posts = new Map<string, number>();
  for (const tags of list.postTags.slice(ahead)) for (const tag of tags) posts.set(tag, (posts.get(tag) ?? 0) + 1);
  return {
    slugs: new Set(list.slugs.slice(ahead)),
    blogPages: pageCount(list.slugs.length - ahead, perPage),
    tagPages: new Map([...posts].map(([tag, count]) => [tag, pageCount(count, perPage)])),
  };
}
