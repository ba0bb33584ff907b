import { createElement } from 'react';
import { describe, expect, it } from 'vitest';
import { OgCard } from '@/components/og-card';
import { emojiFileName, renderCard } from '@/components/og-image';

const card = (title: string) => renderCard(createElement(OgCard, { kicker: 'Site', title, footer: 'Author' }));
// A private-use character: no font has it, so it is drawn as the empty box.
const BOX = '\ue000';

describe('the Open Graph card', () => {
  it('is a 1200×630 PNG', async () => {
    const png = await card('Plain title');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
  });

  it.each([
    ['a check mark', '✓'],
    ['an arrow', '→'],
    ['an emoji', '🚀'],
    ['an emoji with a variation selector', '❤️'],
    ['a ZWJ emoji sequence', '👩‍💻'],
    ['a flag', '🇮🇱'],
    ['Hebrew', 'שלום'],
  ])('draws %s, not the empty box', async (_, glyphs) => {
    const drawn = await card(`Title ${glyphs}`);
    const boxed = await card(`Title ${BOX.repeat([...glyphs].length)}`);
    const single = await card(`Title ${BOX}`);
    expect(drawn.equals(boxed)).toBe(false);
    expect(drawn.equals(single)).toBe(false);
  });

  it("names an emoji's Twemoji file as Twemoji does: no U+FE0F outside a ZWJ sequence", () => {
    expect(emojiFileName('🚀')).toBe('1f680.svg');
    expect(emojiFileName('❤️')).toBe('2764.svg');
    expect(emojiFileName('👩‍💻')).toBe('1f469-200d-1f4bb.svg');
  });
});
