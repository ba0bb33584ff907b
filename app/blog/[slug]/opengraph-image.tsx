import { notFound } from 'next/navigation';
import { ImageResponse } from 'next/og';
import { OG_SIZE, OgCard } from '@/components/og-card';
import { publishedPost, site } from '@/lib/content';
import { postParams } from '@/lib/content/source';

export const size = OG_SIZE;
export const contentType = 'image/png';

// The newest PRERENDER_POSTS posts are generated at build, the others on their first request;
// a slug that is not a published post is a 404 without rendering anything.
export const dynamicParams = true;
export const generateStaticParams = postParams;

export const alt = `The post's title on a card of ${site().name}`;

const longDate = new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' });

/** Each post's Open Graph image: its title on the site's card, drawn at build time. */
export default async function Image({ params }: { params: Promise<{ slug: string }> }) {
  const post = publishedPost((await params).slug);
  if (!post) notFound();
  const { name, author } = site();
  const date = longDate.format(Date.parse(post.date.length === 10 ? `${post.date}T00:00:00Z` : post.date));
  return new ImageResponse(<OgCard kicker={name} title={post.title} footer={[author.name, date].filter(Boolean).join(' · ')} />, OG_SIZE);
}
