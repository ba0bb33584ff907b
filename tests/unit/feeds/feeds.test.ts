import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { tagBySlug } from '@/lib/content';
import { atomFeed, jsonFeed, jsonFeedSchema, rssFeed, tagRssFeed } from '@/lib/feeds/feeds';
import { FIXTURE_SITE, PUBLISHED_SLUGS, withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

const xml = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'item' || name === 'entry' || name === 'category' || name === 'atom:link' });
const postUrls = PUBLISHED_SLUGS.map((slug) => `${FIXTURE_SITE}/blog/${slug}`);

describe('feeds', () => {
  it('RSS: every published post, newest first, its permalink as link and guid, a category per tag', async () => {
    const channel = xml.parse(await rssFeed()).rss.channel;
    expect(channel.item.map((item: { link: string }) => item.link)).toEqual(postUrls);
    expect(channel.item[3].guid['#text']).toBe(`${FIXTURE_SITE}/blog/alpha-post`);
    expect(channel.item[3].category.map((category: { '@_domain': string }) => category['@_domain'])).toEqual([
      `${FIXTURE_SITE}/tags/http`,
      `${FIXTURE_SITE}/tags/testing`,
    ]);
    expect(channel['atom:link'][0]['@_href']).toBe(`${FIXTURE_SITE}/api/rss`);
  });

  it('Atom: dated by the newest change, each entry identified by its post URL', async () => {
    const feed = xml.parse(await atomFeed()).feed;
    expect(feed.updated).toBe('2025-04-01T07:30:00.000Z');
    expect(feed.entry.map((entry: { id: string }) => entry.id)).toEqual(postUrls);
  });

  it('JSON Feed 1.1: valid against its schema, items by post URL, absolute links in the HTML', async () => {
    const feed = jsonFeedSchema.parse(JSON.parse(await jsonFeed()));
    expect(feed.items.map((item) => item.url)).toEqual(postUrls);
    for (const item of feed.items) expect(item.content_html).not.toMatch(/(?:href|src)="\/(?!\/)/);
  });

  it('names an author on every entry of every feed: the post’s own (gamma-post’s), else the site’s', async () => {
    const expected = PUBLISHED_SLUGS.map((slug) => (slug === 'gamma-post' ? 'Guest Writer' : 'Test Author'));
    const rss = await rssFeed();
    expect(XMLValidator.validate(rss)).toBe(true);
    const channel = xml.parse(rss).rss.channel;
    expect(rss.match(/xmlns:dc="http:\/\/purl\.org\/dc\/elements\/1\.1\/"/g)).toHaveLength(1);
    expect(channel['dc:creator']).toBe('Test Author');
    expect(channel.item.map((item: { 'dc:creator': string }) => item['dc:creator'])).toEqual(expected);
    const atom = xml.parse(await atomFeed()).feed;
    expect(atom.entry.map((entry: { author: { name: string } }) => entry.author.name)).toEqual(expected);
    const json = jsonFeedSchema.parse(JSON.parse(await jsonFeed()));
    expect(json.items.map((item) => item.authors.map((author) => author.name))).toEqual(expected.map((name) => [name]));
  });

  it('Atom states its language as xml:lang on the root', async () => {
    expect(xml.parse(await atomFeed()).feed['@_xml:lang']).toBe('en');
  });

  it('an author name is escaped like every text in XML', async () => {
    const tag = tagBySlug('testing');
    if (!tag) throw new Error('the fixture content has the tag "testing"');
    const post = { ...tag.posts[0]!, author: 'A <b>&</b> "B"' };
    const rss = await tagRssFeed({ ...tag, posts: [post] });
    expect(rss).toContain('<dc:creator>A &lt;b&gt;&amp;&lt;/b&gt; &quot;B&quot;</dc:creator>');
  });

  it("a tag's RSS holds only that tag's published posts and names its own URLs", async () => {
    const tag = tagBySlug('testing');
    if (!tag) throw new Error('the fixture content has the tag "testing"');
    const channel = xml.parse(await tagRssFeed(tag)).rss.channel;
    expect(channel.item.map((item: { link: string }) => item.link)).toEqual([`${FIXTURE_SITE}/blog/beta-post`, `${FIXTURE_SITE}/blog/alpha-post`]);
    expect(channel.link).toBe(`${FIXTURE_SITE}/tags/testing`);
    expect(channel['atom:link'][0]['@_href']).toBe(`${FIXTURE_SITE}/tags/testing/rss.xml`);
  });
});
