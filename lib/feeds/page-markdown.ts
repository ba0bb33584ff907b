import { absoluteUrl } from '../runtime/site';
import { apps, contentPaths, publishedPosts, site, tags, type Post, type Tag } from '../content';
import { supportRoute } from '../write-routes/support';

/**
 * The markdown twins of the site's pages (lib/http/markdown-twins.ts): each
 * says what its HTML page says, from the same content, with links to
 * markdown where a markdown twin exists. The titles and descriptions are the
 * pages' own (their metadata reads them from here).
 */
export const pageFacts = {
  blog: () => ({ title: 'Blog', description: `Every post on ${site().name}, newest first.` }),
  tag: (tag: Tag) => ({ title: `Posts tagged “${tag.name}”`, description: `${tag.posts.length} posts about ${tag.name}.` }),
  apps: () => ({ title: 'Desktop apps', description: `Desktop apps from ${site().name}, free to download.` }),
  support: () => ({
    title: 'Support',
    description: `Write to ${site().name}: questions about the training, the bundles, the book or a post.`,
    intro: 'Questions about the training, a bundle, the book or a post? Write here: the message is kept and you get a receipt by email, then an answer.',
  }),
};

/** Brackets in a title would end the link text early. */
export function escapeLinkText(text: string): string {
  return text.replace(/[[\]\\]/g, (char) => `\\${char}`);
}

/** One post as a list item: its title linked to its markdown, its description and date. */
export function postLinkLine(post: Post): string {
  return `- [${escapeLinkText(post.title)}](${post.markdownUrl}): ${post.description} (${post.date})`;
}

function postList(posts: readonly Post[]): string[] {
  return posts.length > 0 ? posts.map(postLinkLine) : ['No posts yet.'];
}

/** `/blog.md`: the tags, then every published post, newest first. */
export function blogMarkdown(): string {
  const { title, description } = pageFacts.blog();
  const allTags = tags();
  return [
    `# ${title}`,
    '',
    `> ${description}`,
    '',
    ...(allTags.length > 0
      ? [
          '## Tags',
          '',
          ...allTags.map((tag) => `- [${escapeLinkText(tag.name)}](${absoluteUrl(contentPaths.tagMarkdown(tag.slug))}) (${tag.posts.length})`),
          '',
        ]
      : []),
    '## Posts',
    '',
    ...postList(publishedPosts()),
    '',
  ].join('\n');
}

/** `/tags/{tag}.md`: the tag's posts, newest first. */
export function tagMarkdown(tag: Tag): string {
  const { title, description } = pageFacts.tag(tag);
  return [`# ${title}`, '', `> ${description}`, '', ...postList(tag.posts), '', `Every post: ${absoluteUrl('/blog.md')}`, ''].join('\n');
}

/** `/apps.md`: each desktop app with its version, platforms, text and download link. */
export function appsMarkdown(): string {
  const { title, description } = pageFacts.apps();
  const lines = [`# ${title}`, '', `> ${description}`];
  if (apps().length === 0) lines.push('', 'No apps yet.');
  for (const app of apps()) {
    lines.push('', `## ${app.name}`, '', `- Version: ${app.version}`);
    if (app.platforms.length > 0) lines.push(`- Platforms: ${app.platforms.join(', ')}`);
    lines.push(`- Download: ${absoluteUrl(`/api/apps/${app.slug}/download`)}`, '', app.description, '', app.body.trim());
  }
  return `${lines.join('\n').trimEnd()}\n`;
}

/** `/support.md`: how to write, from the page or from a program. */
export function supportMarkdown(): string {
  const { title, intro } = pageFacts.support();
  const { path, limit, schema } = supportRoute;
  const { requests, windowSeconds } = limit;
  const fields = Object.keys(schema.shape).filter((name) => name !== 'website');
  return [
    `# ${title}`,
    '',
    intro,
    '',
    `The form on ${absoluteUrl('/support')} posts to \`${path}\`: JSON or a urlencoded form with ${fields.map((name) => `\`${name}\``).join(', ')}, all required. It answers 202 with the message id; at most ${requests} messages per ${windowSeconds / 60} minutes from one address. The details are at ${absoluteUrl('/docs/api.md')}.`,
    '',
  ].join('\n');
}
