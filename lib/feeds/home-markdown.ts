import { homePage, publishedPosts, site, urls } from '../content';

export const HOME_LATEST_COUNT = 10;

/** The homepage as markdown: its own text, then the latest posts as links to their markdown. */
export function homeMarkdown(): string {
  const home = homePage();
  const latest = publishedPosts()
    .slice(0, HOME_LATEST_COUNT)
    .map((post) => `- [${escapeLinkText(post.title)}](${urls.postMarkdown(post.slug)}): ${post.description} (${post.date})`);
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
  ].join('\n');
}

/** Brackets in a title would end the link text early. */
export function escapeLinkText(text: string): string {
  return text.replace(/[[\]\\]/g, (char) => `\\${char}`);
}
