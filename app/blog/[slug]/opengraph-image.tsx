import { notFound } from 'next/navigation';
import { OG_SIZE, OgCard } from '@/components/og-card';
import { cardResponse, renderCard } from '@/components/og-image';
import { publishedPost, site } from '@/lib/content';
import { kept } from '@/lib/content/build-cache';
import { longDate } from '@/lib/content/dates';
import { postParams } from '@/lib/content/source';

export const size = OG_SIZE;
export const contentType = 'image/png';

// The newest PRERENDER_POSTS posts are generated at build, the others on their first request;
// a slug that is not a published post is a 404 without rendering anything.
export const dynamicParams = true;
export const generateStaticParams = postParams;

export const alt = `The post's title on a card of ${site().name}`;

/** Each post's Open Graph image: its title on the site's card, drawn at build (or on the first request of an older post). */
export default async function Image({ params }: { params: Promise<{ slug: string }> }) {
  const post = publishedPost((await params).slug);
  if (!post) notFound();
  const { name, author } = site();
  const date = longDate(post.dateMillis, site().timezone);
  const footer = [post.author ?? author.name, date].filter(Boolean).join(' · ');
  // Drawn once per title, name and date, and kept between builds (lib/content/build-cache.ts).
  const png = await kept('card', JSON.stringify([name, post.title, footer]), async () =>
    renderCard(<OgCard kicker={name} title={post.title} footer={footer} />),
  );
  return cardResponse(png);
}
