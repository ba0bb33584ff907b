import { Feed } from 'feed';
import { absoluteUrl, config } from '../config';
import { publishedPosts, site, urls } from '../content';
import { absolutizeHtml, renderMarkdown } from '../content/render';

export const RSS_ITEM_COUNT = 50;

/** RSS 2.0 of the newest published posts, full HTML in content:encoded. */
export async function rssFeed(): Promise<string> {
  const { name, summary, author, language } = site();
  const posts = publishedPosts().slice(0, RSS_ITEM_COUNT);
  const newest = posts.reduce((max, post) => Math.max(max, post.updatedMillis ?? post.dateMillis), 0);
  const feed = new Feed({
    title: name,
    description: summary,
    id: absoluteUrl('/'),
    link: absoluteUrl('/'),
    language,
    copyright: `© ${author.name}`,
    updated: newest > 0 ? new Date(newest) : undefined,
    feedLinks: { rss: urls.rss() },
    generator: 'lectern',
  });
  for (const post of posts) {
    const { html } = await renderMarkdown(post.body);
    feed.addItem({
      title: post.title,
      link: urls.post(post.slug),
      date: new Date(post.dateMillis),
      description: post.description,
      content: absolutizeHtml(html, config().siteUrl),
      category: post.tags.map((tag) => ({ name: tag, domain: urls.tag(tag) })),
    });
  }
  return feed.rss2();
}
