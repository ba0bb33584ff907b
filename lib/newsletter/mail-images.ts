import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import type { InlineImage } from '../services/store/types';

/** The widest an image is shown in the mail: its column (36rem) less the padding. */
export const MAIL_IMAGE_WIDTH = 544;

/** Rendered at twice the width it is shown at, for high-density screens. */
const DENSITY = 2;

/** The site's public folder, where a post's root-relative images are (as lib/content/render.ts reads them). */
const PUBLIC_DIR = path.resolve('public');

const attribute = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
const unescape = (value: string) =>
  value
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

/**
 * Gmail and Outlook show no SVG: each SVG image of the site's own (`/…svg` under public/, linked
 * at `siteUrl`) is rendered to PNG with resvg and sent inside the message (an inline part, `cid:`),
 * at most MAIL_IMAGE_WIDTH pixels wide with its height in proportion; its alt text stays. `html`
 * is rendered markdown, every URL absolute. Anything else (another site's SVG, a file that cannot
 * be read or rendered) is left as it is.
 */
export function svgImagesToPng(html: string, siteUrl: string): { html: string; images: InlineImage[] } {
  const site = new URL(siteUrl);
  const images = new Map<string, InlineImage>();
  const out = html.replace(/<img\b[^>]*>/g, (tag) => {
    const src = attribute(tag, 'src');
    if (!src) return tag;
    let url: URL;
    try {
      url = new URL(unescape(src));
    } catch {
      return tag;
    }
    if (url.origin !== site.origin || !url.pathname.toLowerCase().endsWith('.svg')) return tag;
    const file = path.resolve(PUBLIC_DIR, `.${decodeURIComponent(url.pathname)}`);
    if (!file.startsWith(PUBLIC_DIR + path.sep) || !fs.existsSync(file)) return tag;
    let image = images.get(file);
    if (!image) {
      try {
        const svg = fs.readFileSync(file);
        const intrinsic = new Resvg(svg).width;
        const width = Math.min(Math.round(intrinsic) || MAIL_IMAGE_WIDTH, MAIL_IMAGE_WIDTH);
        const rendered = new Resvg(svg, { fitTo: { mode: 'width', value: width * DENSITY }, background: '#ffffff', font: { loadSystemFonts: true } }).render();
        const digest = createHash('sha256').update(svg).digest('hex').slice(0, 16);
        image = {
          cid: `${path.basename(file, path.extname(file))}.${digest}@lectern`,
          filename: `${path.basename(file, path.extname(file))}.png`,
          contentType: 'image/png',
          content: rendered.asPng().toString('base64'),
          width,
          height: Math.round((rendered.height / rendered.width) * width),
        };
      } catch {
        return tag;
      }
      images.set(file, image);
    }
    const alt = attribute(tag, 'alt') ?? '';
    return `<img src="cid:${image.cid}" alt="${alt}" width="${image.width}" height="${image.height}">`;
  });
  return { html: out, images: [...images.values()] };
}
