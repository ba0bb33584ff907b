import { feedTypes, tagRssFeed } from '@/lib/feeds/feeds';
import { feedResponse, textResponse } from '@/lib/http/responses';
import { tagBySlug } from '@/lib/content';
import { lastModified, tagParams } from '@/lib/content/source';

export const dynamicParams = false;

export function generateStaticParams() {
  return tagParams();
}

export async function GET(_request: Request, { params }: RouteContext<'/tags/[tag]/rss.xml'>) {
  const { tag: slug } = await params;
  const tag = tagBySlug(slug);
  // A tag only posts dated ahead carry: a 404 until one goes live. A response (not notFound()) is
  // what Next keeps with its cache tags, so the build's 404 is made again then (lib/publishing).
  if (!tag) return textResponse('Not found\n', { status: 404, cache: 'error' });
  return feedResponse(await tagRssFeed(tag), feedTypes.rss, { lastModified: lastModified(tag.posts) });
}
