import { publicEndpoints } from '../public-endpoints';
import { notBuilt, type NotBuilt } from './built-paths';
import { buildRecord } from '../runtime/site';

/** How many URLs the sitemap lists besides posts and list pages (lib/sitemap/urls.ts). */
let fixedSitemap: number | undefined;
const fixedSitemapUrls = () => (fixedSitemap ??= publicEndpoints().filter((endpoint) => endpoint.sitemap).length);

/**
 * How to answer a URL under one of app/'s dynamic segments whose value is not live at `now` (made
 * up, or filled only by posts dated ahead: a scheduled post's slug, tag or page), or undefined for
 * every other URL (and wherever the build wrote no list: development). Judged against the posts
 * live now (`liveView`), so a value only a scheduled post fills answers as a made-up one. The one
 * judgement proxy.ts and lectern's server answer such a value by.
 */
export function madeUpValue(pathname: string, now: number): NotBuilt | undefined {
  const list = buildRecord().builtList();
  const live = list && buildRecord().liveView(now);
  return list && live ? notBuilt(pathname, list, live, fixedSitemapUrls()) : undefined;
}
