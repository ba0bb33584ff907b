/**
 * Screenshots of a post's newsletter mail as a reader's mail program shows it: its HTML part in
 * Chromium (playwright-core, Debian's /usr/bin/chromium or CHROME_PATH), 390 px (a phone) and
 * 1280 px wide, in light and dark mode, the images sent inside the message shown in place.
 *   npx tsx scripts/newsletter-screenshots.ts [slug] [folder]
 * Defaults: rate-limiting-small-write-forms (a diagram, code blocks and inline code), docs/newsletter.
 * Reads the content folder (CONTENT_DIR) and SITE_URL as the server does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { contentPost, sampleMail } from '../lib/newsletter/cli';
import { settings } from '../lib/settings';

const [slug = 'rate-limiting-small-write-forms', folder = 'docs/newsletter'] = process.argv.slice(2);
const post = contentPost(slug, settings().site);
if (!post) {
  process.stderr.write(`No post "${slug}" in the content folder.\n`);
  process.exit(2);
}
const mail = await sampleMail(post, 'reader@example.com', settings().site);
// A mail program shows `cid:` images from the message's own parts; a browser needs them inline.
const html = (mail.images ?? []).reduce((page, image) => page.replaceAll(`cid:${image.cid}`, `data:${image.contentType};base64,${image.content}`), mail.html);

const browser = await chromium.launch({ executablePath: process.env.CHROME_PATH || '/usr/bin/chromium', headless: true, args: ['--no-sandbox'] });
try {
  fs.mkdirSync(folder, { recursive: true });
  for (const width of [390, 1280]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme });
      // Nothing is fetched: the page is the mail alone, as a mail program that blocks remote content shows it.
      await page.route('**/*', (route) => route.abort());
      await page.setContent(html, { waitUntil: 'load' });
      const file = path.join(folder, `${slug}-${width}-${colorScheme}.png`);
      await page.screenshot({ path: file, fullPage: true });
      await page.close();
      process.stdout.write(`${file}\n`);
    }
  }
} finally {
  await browser.close();
}
