import fs from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, newContext, screenshot, url, VIEWPORTS } from './support/browser';
import { templatePages } from './support/pages';

let browser: Browser;
let post: string;

beforeAll(async () => {
  browser = await launch();
  post = (await templatePages()).find((entry) => entry.template === '/blog/[slug]')!.path;
});

afterAll(async () => {
  await browser?.close();
});

/**
 * Full-page screenshots of the pages people land on, at phone and desktop
 * widths, light and dark, saved to test-results/screenshots/ for a person to look at.
 */
describe('screenshots', () => {
  for (const size of ['phone', 'desktop'] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`home, post and pricing (${size}, ${scheme})`, async () => {
        const context = await newContext(browser, { viewport: VIEWPORTS[size], colorScheme: scheme, deviceScaleFactor: 1 });
        const page = await context.newPage();
        for (const [name, pathname] of [
          ['home', '/'],
          ['post', post],
          ['pricing', '/pricing'],
        ] as const) {
          await page.goto(url(pathname), { waitUntil: 'networkidle' });
          const file = await screenshot(page, `${name}-${size}-${scheme}`);
          expect(fs.statSync(file).size).toBeGreaterThan(10_000);
        }
        await context.close();
      });
    }
  }
});
