import { notFound } from 'next/navigation';
import { feedTypes, tagRssFeed } from '@/lib/feeds/feeds';
import { feedResponse } from '@/lib/http/responses';
import { tagBySlug } from '@/lib/content';
import { lastModified, tagParams } from '@/lib/content/source';

export const dynamicParams = false;

export function generateStaticParams() {
  return tagParams();
}

export async function GET(_request: Request, { params }: RouteContext<'/tags/[tag]/rss.xml'>) {
  const { tag: slug } = await params;
  const tag = tagBySlug(slug);
  if (!tag) notFound();
  return feedResponse(await tagRssFeed(tag), feedTypes.rss, { lastModified: lastModified(tag.posts) });
}
