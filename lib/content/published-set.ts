import fs from 'node:fs';
import path from 'node:path';
import { pageCount } from './pagination';
import { nodeEnv } from '../settings';

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
  /**
   * The version of the renderer the build's cache was made under (lib/content/kept.ts): lectern's
   * server, which runs lib/ outside Next's bundles, keeps its renders under it too, so a post
   * rendered by one copy is read by the others.
   */
  rendererVersion?: string;
};

/** What exists at one moment: the live posts, and the pages and tags they fill. */
export type LiveView = {
  /** The build's posts whose time has come. */
  slugs: ReadonlySet<string>;
  /** How many pages /blog fills with them. */
  blogPages: number;
  /** The tags they carry, each with how many pages its list fills. */
  tagPages: ReadonlyMap<string, number>;
};

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

function viewOf(list: PublishedSet, ahead: number, perPage: number): LiveView {
  const posts = new Map<string, number>();
  for (const tags of list.postTags.slice(ahead)) for (const tag of tags) posts.set(tag, (posts.get(tag) ?? 0) + 1);
  return {
    slugs: new Set(list.slugs.slice(ahead)),
    blogPages: pageCount(list.slugs.length - ahead, perPage),
    tagPages: new Map([...posts].map(([tag, count]) => [tag, pageCount(count, perPage)])),
  };
}

/** The build's list of posts, as one build writes it and one started site reads it (see the top of this file). */
export type BuildRecord = {
  /** Whether this process is a build. */
  building(): boolean;
  /** Called by the build (every generateStaticParams goes through it): writes the list once per worker. */
  recordPublishedSet(list: () => PublishedSet): void;
  /** What the build recorded, or undefined where no build wrote it (see builtSlugs). */
  builtList(): PublishedSet | undefined;
  /**
   * Every post of the build (published or dated ahead), or undefined during a build, in
   * development, or where no build wrote the list (a test loading the modules on their own):
   * then every loaded post counts.
   */
  builtSlugs(): ReadonlySet<string> | undefined;
  /**
   * What is live at `now` (undefined where builtSlugs is): the build's posts whose time has come, and
   * the blog pages and tags (with their pages) those posts fill, no more. The same object while no
   * post comes due, so what is derived from it is made once per change.
   */
  liveView(now: number): LiveView | undefined;
};

/**
 * The list of the build in `build.distDir` (`build.running`: this process is the build that
 * writes it, with its `rendererVersion`); its pages are counted `postsPerPage` to a page. It is
 * read once, on first use.
 */
export function buildRecordIn(build: { distDir: string; running: boolean; rendererVersion?: string }, postsPerPage: number): BuildRecord {
  const file = path.join(build.distDir, 'lectern', 'published.json');
  const building = () => build.running;
  let recorded = false;
  let read: { list?: PublishedSet; all?: ReadonlySet<string>; due?: { index: number; view: LiveView } } | undefined;

  function builtList(): PublishedSet | undefined {
    if (building() || nodeEnv() === 'development') return undefined;
    if (!read) {
      try {
        const list = JSON.parse(fs.readFileSync(file, 'utf8')) as PublishedSet;
        read = { list, all: new Set(list.slugs) };
      } catch {
        read = {};
      }
    }
    return read.list;
  }

  return {
    building,
    recordPublishedSet(list) {
      if (recorded || !building()) return;
      recorded = true;
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // Each build worker writes the same list; a rename keeps a reader from seeing half of one.
      const temporary = `${file}.${process.pid}`;
      fs.writeFileSync(temporary, JSON.stringify({ ...list(), rendererVersion: build.rendererVersion }));
      fs.renameSync(temporary, file);
    },
    builtList,
    builtSlugs() {
      builtList();
      return read?.all;
    },
    liveView(now) {
      const list = builtList();
      if (!list || !read) return undefined;
      const index = aheadCount(list.dates, now);
      if (read.due?.index !== index) read.due = { index, view: viewOf(list, index, postsPerPage) };
      return read.due.view;
    },
  };
}
