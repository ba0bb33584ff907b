/**
 * Validates the content folder (CONTENT_DIR) with the build's own rules and
 * prints every problem, without building the site. Exits 1 when there are any.
 * Lists the posts dated ahead with the time each goes live.
 *   npm run check
 */
import path from 'node:path';
import { frontmatterRendersAsHeading } from '../lib/content/frontmatter';
import { ContentError, isPublished, loadContent } from '../lib/content/load';
import { scheduledPostLines } from '../lib/publishing/schedule-list';
import { settings } from '../lib/settings';

const { contentDir } = settings().site;
try {
  const content = loadContent(contentDir);
  const now = Date.now();
  const published = content.posts.filter((post) => isPublished(post, now)).length;
  const drafts = content.posts.filter((post) => post.draft).length;
  const scheduled = content.posts.length - published - drafts;
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  // A markdown twin serves the file as written: warn where its frontmatter would read as a heading.
  const twins = [
    { file: path.join(contentDir, 'home.md'), source: content.home.source },
    ...content.posts.map((post) => ({ file: path.join(contentDir, 'posts', `${post.slug}.md`), source: post.source })),
  ];
  for (const { file } of twins.filter((twin) => frontmatterRendersAsHeading(twin.source))) {
    console.warn(
      `Warning: ${path.relative(process.cwd(), file)}: the frontmatter's last line runs into the closing "---", which CommonMark reads as a heading underline (its markdown twin shows the frontmatter as a heading). Put a blank line before the closing "---".`,
    );
  }
  console.log(
    `Content is valid: ${count(content.posts.length, 'post')} (${published} published, ${count(drafts, 'draft')}, ${scheduled} scheduled), ${count(content.apps.length, 'app')}, ${count(content.products.length, 'product')}.`,
  );
  // site.yaml's timezone (a date without a time is midnight there).
  for (const line of scheduledPostLines(content.posts, now, content.site.timezone)) console.log(line);
} catch (error) {
  if (!(error instanceof ContentError)) throw error;
  console.error(error.message);
  process.exit(1);
}
