import { feedTypes, tagRssFeed } from '@/lib/feeds/feeds';
import { feedResponse, textResponse } from '@/lib/http/responses';
import { lastModified, tagFileGet, tagParams } from '@/lib/content/source';

export const dynamicParams = false;
export const generateStaticParams = tagParams;

export const GET = tagFileGet(
  async (tag) => feedResponse(await tagRssFeed(tag), feedTypes.rss, { lastModified: lastModified(tag.posts) }),
  // A tag only posts dated ahead carry: a 404 until one goes live. A response (not notFound()) is
  // what Next keeps with its cache tags, so the build's 404 is made again then (lib/publishing).
  () => textResponse('Not found\n', { status: 404, cache: 'error' }),
);
