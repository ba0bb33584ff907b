import { createSiteContent, type SiteContent } from '../content/site-content';
import { settings } from '../settings';
import { buildRecord, clock } from './site';

let made: SiteContent | undefined;

/**
 * The content this process serves (lib/content/index.ts asks for it), made on first use from the
 * settings groups it is about: the content folder, the build's facts and the process's clock. One
 * per copy of lib/, as the site's facts are (lib/runtime/site.ts); the content is read once, or in
 * development whenever the folder changed.
 */
export function siteContent(): SiteContent {
  if (!made) {
    const { site, build } = settings();
    made = createSiteContent({ contentDir: site.contentDir, prerenderPosts: build.prerenderPosts, buildTime: build.time, clock, buildRecord: buildRecord() });
  }
  return made;
}
