/**
 * Validates the content folder (CONTENT_DIR) with the build's own rules and
 * prints every problem, without building the site. Exits 1 when there are any.
 * Lists the posts dated ahead with the time each goes live.
 *   npm run check
 */
import { config } from '../lib/config';
import { ContentError, isPublished, loadContent } from '../lib/content/load';
import { scheduledPostLines } from '../lib/publishing/schedule-list';

const { contentDir } = config();
try {
  const content = loadContent(contentDir);
  const now = Date.now();
  const published = content.posts.filter((post) => isPublished(post, now)).length;
  const drafts = content.posts.filter((post) => post.draft).length;
  const scheduled = content.posts.length - published - drafts;
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  console.log(
    `Content is valid: ${count(content.posts.length, 'post')} (${published} published, ${count(drafts, 'draft')}, ${scheduled} scheduled), ${count(content.apps.length, 'app')}, ${count(content.products.length, 'product')}.`,
  );
  // site.yaml's timezone, where the schema has one (a date without a time is midnight there).
  const timeZone = (content.site as { timezone?: string }).timezone;
  for (const line of scheduledPostLines(content.posts, now, timeZone)) console.log(line);
} catch (error) {
  if (!(error instanceof ContentError)) throw error;
  console.error(error.message);
  process.exit(1);
}
