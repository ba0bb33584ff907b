import { OG_SIZE, OgCard } from '@/components/og-card';
import { cardResponse, renderCard } from '@/components/og-image';
import { site } from '@/lib/content';

export const size = OG_SIZE;
export const contentType = 'image/png';

export const alt = `${site().name}: ${site().summary}`;

/** At most `max` characters, cut at a word. */
function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  return `${cut.slice(0, cut.lastIndexOf(' ') > 0 ? cut.lastIndexOf(' ') : cut.length).replace(/[\s,;:.]+$/, '')}…`;
}

/** The site's Open Graph image, for every page without one of its own. */
export default async function Image() {
  const { name, summary, author } = site();
  const png = await renderCard(<OgCard kicker={author.name} title={name} footer={shorten(summary, 110)} />);
  return cardResponse(png);
}
