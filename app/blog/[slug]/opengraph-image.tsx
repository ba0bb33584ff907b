import { ImageResponse } from 'next/og';
import { OG_SIZE, OgCard } from '@/components/og-card';
import { publishedPost, site } from '@/lib/content';
import { postParams } from '@/lib/content/source';

export const size = OG_SIZE;
export const contentType = 'image/png';
export const dynamicParams = false;

export function generateStaticParams() {
  return postParams();
}

export const alt = `The post's title on a card of ${site().name}`;

const longDate = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' });

/** Each post's Open Graph image: its title on the site's card, drawn at build time. */
export default async function Image({ params }: { params: Promise<{ slug: string }> }) {
  const post = publishedPost((await params).slug);
  const { name, author } = site();
  const date = post ? longDate.format(Date.parse(post.date.length === 10 ? `${post.date}T00:00:00Z` : post.date)) : '';
  return new ImageResponse(<OgCard kicker={name} title={post?.title ?? name} footer={[author.name, date].filter(Boolean).join(' · ')} />, OG_SIZE);
}
