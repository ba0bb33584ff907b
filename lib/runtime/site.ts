import { offsetClock, type Clock } from '../clock';
import { keptIn, type Kept } from '../content/kept';
import { buildRecordIn, type BuildRecord } from '../content/published-set';
import { settings } from '../settings';

/**
 * The site as this process serves it, made from its settings groups (site, build, publishing) on
 * first use: its URL, its clock, the build's list of posts and the build's cache. Every page, feed,
 * file and mail is made from these, mostly through calls with no arguments, so they are asked for
 * here rather than handed down. One per copy of lib/ (lib/process-shared.ts), as the settings are:
 * Next's bundles carry the build's moment and renderer version inlined, lectern's server's copy
 * does not (it reads the renderer version from the build's list), and each keeps the facts of its own.
 */
type Served = { url: string; clock: Clock; buildRecord: BuildRecord; kept: Kept };

let made: Served | undefined;

function served(): Served {
  if (!made) {
    const { site, build, publishing } = settings();
    const buildRecord = buildRecordIn(build, site.postsPerPage);
    // Next's bundles carry the build's renderer version inlined; lectern's server reads it from the
    // build's list, so what one copy renders (a post made ready before its time) the others read.
    const { distDir } = build;
    const rendererVersion = () => build.rendererVersion ?? buildRecord.builtList()?.rendererVersion;
    made = {
      url: site.url,
      clock: offsetClock(publishing.clockOffsetMs),
      buildRecord,
      kept: (kind, key, make) => keptIn({ distDir, rendererVersion: rendererVersion() })(kind, key, make),
    };
  }
  return made;
}

/** The process's clock: the system's, moved by LECTERN_CLOCK_OFFSET_MS (0 outside tests). */
export const clock: Clock = () => served().clock();

/** An absolute URL on this site (SITE_URL, as the running process reads it) for a root-relative path. */
export function absoluteUrl(pathname: string): string {
  return `${served().url}${pathname.startsWith('/') ? pathname : `/${pathname}`}`;
}

/** The build's list of posts (lib/content/published-set.ts). */
export function buildRecord(): BuildRecord {
  return served().buildRecord;
}

/** Work kept between builds in the build's cache folder (lib/content/kept.ts). */
export const kept: Kept = (kind, key, make) => served().kept(kind, key, make);
