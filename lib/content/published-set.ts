import fs from 'node:fs';
import path from 'node:path';
import { config } from '../config';
import { env, nodeEnv } from '../env';

/**
 * The slugs a build published (and its tags, page counts and apps), written by the build into
 * its own folder and read by the started site. Posts past PRERENDER_POSTS are generated on their first request; this list is
 * what keeps that to the build's posts: a slug not on it is a 404 before any rendering (and
 * before Next would keep a 404 page for it), and a post file added or re-dated after the build
 * stays unpublished until the next build.
 */
function file(): string {
  return path.join(config().distDir, 'lectern', 'published.json');
}

const building = () => env().NEXT_PHASE === 'phase-production-build';
let recorded = false;

export type PublishedSet = {
  /** Every published slug, newest first. */
  slugs: string[];
  /** How many of the first `slugs` the build generated (PRERENDER_POSTS then). */
  prerendered: number;
  /** How many pages /blog fills. */
  blogPages: number;
  /** Every tag's slug, with how many pages its list fills. */
  tags: Record<string, number>;
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

let read: { list?: PublishedSet; set?: ReadonlySet<string> } | undefined;

/** What the build recorded, or undefined where no build wrote it (see publishedAtBuild). */
export function builtList(): PublishedSet | undefined {
  if (building() || nodeEnv() === 'development') return undefined;
  if (!read) {
    try {
      const list = JSON.parse(fs.readFileSync(file(), 'utf8')) as PublishedSet;
      read = { list, set: new Set(list.slugs) };
    } catch {
      read = {};
    }
  }
  return read.list;
}

/**
 * The build's published slugs, or undefined during a build, in development, or where no build
 * wrote the list (a test loading the modules on their own): then every loaded post counts.
 */
export function publishedAtBuild(): ReadonlySet<string> | undefined {
  builtList();
  return read?.set;
}
