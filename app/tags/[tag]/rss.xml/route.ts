import { notFound } from 'next/navigation';
import { feedTypes, tagRssFeed } from '@/lib/feeds/feeds';
import { feedResponse } from '@/lib/http/responses';
import { staticParams, tags } from '@/lib/content';
import { newestChange } from '@/lib/content/dates';

export const dynamicParams = false;

export function generateStaticParams() {
  return staticParams(() => tags().map((tag) => ({ tag: tag.slug })));
}

export async function GET(_request: Request, { params }: RouteContext<'/tags/[tag]/rss.xml'>) {
  const { tag: slug } = await params;
  const tag = tags().find((entry) => entry.slug === slug);
  if (!tag) notFound();
  return feedResponse(await tagRssFeed(tag), feedTypes.rss, { lastModified: newestChange(tag.posts) });
}
