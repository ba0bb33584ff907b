import { notBuilt, type NotBuilt } from './built-paths';
import { builtList, dueSlugs } from './published-set';

/**
 * How to answer a URL under one of app/'s dynamic segments whose value is not live at `now` (made
 * up, or a post dated ahead not yet due), or undefined for every other URL (and wherever the build
 * wrote no list: development). The one judgement proxy.ts and lectern's server answer such a value by.
 */
export function madeUpValue(pathname: string, now: number): NotBuilt | undefined {
  const list = builtList();
  return list ? notBuilt(pathname, list, dueSlugs(now) ?? new Set()) : undefined;
}
