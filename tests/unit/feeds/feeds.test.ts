import { XMLParser } from 'fast-xml-parser';
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

  it("a tag's RSS holds only that tag's published posts and names its own URLs", async () => {
    const tag = tagBySlug('testing');
    if (!tag) throw new Error('the fixture content has the tag "testing"');
    const channel = xml.parse(await tagRssFeed(tag)).rss.channel;
    expect(channel.item.map((item: { link: string }) => item.link)).toEqual([`${FIXTURE_SITE}/blog/beta-post`, `${FIXTURE_SITE}/blog/alpha-post`]);
    expect(channel.link).toBe(`${FIXTURE_SITE}/tags/testing`);
    expect(channel['atom:link'][0]['@_href']).toBe(`${FIXTURE_SITE}/tags/testing/rss.xml`);
  });
});
