import { absoluteUrl } from '../runtime/site';
import { homePage, site } from '../content';
import { latestPosts } from '../content/source';
import { postLinkLine } from './page-markdown';

export const HOME_LATEST_COUNT = 10;

/** The homepage as markdown: its own text, then the latest posts as links to their markdown. */
export function homeMarkdown(): string {
  const home = homePage();
  const latest = latestPosts(HOME_LATEST_COUNT).map(postLinkLine);
  return [
    `# ${home.title}`,
    '',
    `> ${site().summary}`,
    '',
    home.body.trim(),
    '',
    '## Latest posts',
    '',
    ...(latest.length > 0 ? latest : ['No posts yet.']),
    '',
    `All posts: ${absoluteUrl('/blog.md')}`,
    '',
  ].join('\n');
}
