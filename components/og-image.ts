import fs from 'node:fs';
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import type { ReactNode } from 'react';
import satori, { type Font } from 'satori';
import { OG_SIZE } from './og-card';

/**
 * Draws a card (components/og-card.tsx) to PNG: satori lays it out to SVG with fonts shipped from
 * npm, resvg draws the SVG. Nothing is fetched, at build or at run time: next/og's ImageResponse
 * fetches a font from Google for a glyph its one font lacks and an emoji's picture from a CDN,
 * which offline leaves the glyph out or fails the build. Here a glyph of Latin, Hebrew or the
 * symbol blocks (✓, arrows, dingbats) is drawn from the fonts below, an emoji from Twemoji's SVG
 * files (`@twemoji/svg`), and any other glyph as the font's empty box.
 */

const modules = path.join(process.cwd(), 'node_modules');

/** The fonts, in the order a glyph is looked up in; all regular weight. */
const FONT_FILES: { name: string; file: string; lang?: string }[] = [
  { name: 'Geist', file: '@fontsource/geist-sans/files/geist-sans-latin-400-normal.woff' },
  { name: 'Noto Sans Hebrew', file: '@fontsource/noto-sans-hebrew/files/noto-sans-hebrew-latin-ext-400-normal.woff' },
  // Satori draws a script it recognises (Hebrew) only in a font marked with its language.
  { name: 'Noto Sans Hebrew', file: '@fontsource/noto-sans-hebrew/files/noto-sans-hebrew-hebrew-400-normal.woff', lang: 'he-IL' },
  { name: 'Noto Sans Symbols 2', file: '@fontsource/noto-sans-symbols-2/files/noto-sans-symbols-2-symbols-400-normal.woff' },
  { name: 'Noto Sans Symbols 2', file: '@fontsource/noto-sans-symbols-2/files/noto-sans-symbols-2-math-400-normal.woff' },
];

let fonts: Font[] | undefined;
function loadFonts(): Font[] {
  fonts ??= FONT_FILES.map(({ name, file, lang }) => ({
    name,
    data: fs.readFileSync(path.join(modules, file)),
    weight: 400,
    style: 'normal',
    ...(lang ? { lang } : {}),
  }));
  return fonts;
}

/** Twemoji's file name for an emoji: its code points in hex, joined by "-", without U+FE0F unless it is a ZWJ sequence. */
export function emojiFileName(emoji: string): string {
  const text = emoji.includes('\u200d') ? emoji : emoji.replaceAll('\ufe0f', '');
  return `${[...text].map((char) => char.codePointAt(0)!.toString(16)).join('-')}.svg`;
}

const emojiCache = new Map<string, string | undefined>();

/** An emoji as a data URL of its Twemoji SVG; undefined when Twemoji has none (nothing is drawn). */
function emojiImage(emoji: string): string | undefined {
  const name = emojiFileName(emoji);
  if (!emojiCache.has(name)) {
    const file = path.join(modules, '@twemoji/svg', name);
    emojiCache.set(name, fs.existsSync(file) ? `data:image/svg+xml;base64,${fs.readFileSync(file).toString('base64')}` : undefined);
  }
  return emojiCache.get(name);
}

/** What a card is sent with, as next/og sent it: the same bytes for good (a new title is a new build and a new URL). */
const CARD_CACHE_CONTROL = 'public, immutable, no-transform, max-age=31536000';

export function cardResponse(png: Buffer): Response {
  return new Response(new Uint8Array(png), { headers: { 'Content-Type': 'image/png', 'Cache-Control': CARD_CACHE_CONTROL } });
}

/** The card as PNG bytes, 1200×630. */
export async function renderCard(card: ReactNode): Promise<Buffer> {
  const svg = await satori(card, {
    ...OG_SIZE,
    fonts: loadFonts(),
    // Asked only for what the fonts above lack: an emoji gets its picture, anything else no font (the empty box).
    loadAdditionalAsset: async (code, segment) => (code === 'emoji' ? (emojiImage(segment) ?? []) : []),
  });
  return Buffer.from(new Resvg(svg, { fitTo: { mode: 'width', value: OG_SIZE.width } }).render().asPng());
}
