import AxeBuilder from '@axe-core/playwright';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cspViolations, launch, layoutShift, newContext, url, VIEWPORTS, watch } from './support/browser';

let browser: Browser;
let sample: { slug: string; word: string };

beforeAll(async () => {
  browser = await launch();
  // A word of the newest post's title: that post must be among the results.
  const { posts } = (await (await fetch(url('/api/blog'))).json()) as { posts: { slug: string; title: string }[] };
  const post = posts[0]!;
  const word = [...(post.title.match(/[A-Za-z]{5,}/g) ?? [])].sort((a, b) => b.length - a.length)[0];
  if (!word) throw new Error(`no word of five letters in the title of ${post.slug}`);
  sample = { slug: post.slug, word };
});

afterAll(async () => {
  await browser?.close();
});

describe('search', () => {
  for (const size of ['phone', 'desktop'] as const) {
    for (const javaScript of [true, false]) {
      it(`finds a post from the header's search box (${size}, JavaScript ${javaScript ? 'on' : 'off'})`, async () => {
        const context = await newContext(browser, { viewport: VIEWPORTS[size], javaScriptEnabled: javaScript });
        const page = await context.newPage();
        const problems = await watch(page);
        await page.goto(url('/'), { waitUntil: 'networkidle' });
        const box = page.getByRole('search', { name: 'Search the site' }).getByRole('searchbox', { name: 'Search the site' });
        expect(await box.isVisible()).toBe(true);
        await box.fill(sample.word);
        await Promise.all([page.waitForURL((address) => address.pathname === '/search'), box.press('Enter')]);
        expect(new URL(page.url()).searchParams.get('q')).toBe(sample.word);
        await page.waitForLoadState('networkidle');
        const results = page.locator('ol.search-results > li');
        expect(await results.count()).toBeGreaterThan(0);
        expect(await page.locator(`ol.search-results a[href="/blog/${sample.slug}"]`).count()).toBe(1);
        expect((await results.first().locator('p').last().textContent())?.trim().length).toBeGreaterThan(20);
        expect(await page.locator('#search-q').inputValue()).toBe(sample.word);
        // Console and request problems, layout shift, axe and CSP reports are read by scripts in the page, so only where scripts run.
        if (javaScript) {
          expect(problems.list()).toEqual([]);
          const shift = await layoutShift(page);
          expect(shift.moved).toEqual([]);
          expect(shift.total).toBe(0);
          const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']).analyze();
          expect(axe.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
          expect(await cspViolations(page)).toEqual([]);
        }
        await context.close();
      });
    }
  }

  it('marks the matched words and links each result to the section that matched, which opens at that heading', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const problems = await watch(page);
    await page.goto(url('/search?q=token+bucket'), { waitUntil: 'networkidle' });
    const first = page.locator('ol.search-results > li').first();
    expect(await first.locator('h2 a').getAttribute('href')).toBe('/blog/rate-limiting-small-write-forms');
    const section = first.locator('a.section-link');
    expect(await section.textContent()).toBe('Token bucket, in one picture');
    expect(await section.getAttribute('href')).toBe('/blog/rate-limiting-small-write-forms#token-bucket-in-one-picture');
    const marks = (await first.locator('mark').allTextContents()).map((text) => text.toLowerCase());
    expect(marks).toContain('token');
    expect(marks).toContain('bucket');
    // A mark is seen: its background differs from the paragraph's.
    const [markBackground, textBackground] = await first
      .locator('mark')
      .first()
      .evaluate((mark) => [getComputedStyle(mark).backgroundColor, getComputedStyle(mark.parentElement!).backgroundColor]);
    expect(markBackground).not.toBe(textBackground);
    const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']).analyze();
    expect(axe.violations.map((violation) => `${violation.id}: ${violation.help}`)).toEqual([]);
    await Promise.all([page.waitForURL((address) => address.hash === '#token-bucket-in-one-picture'), section.click()]);
    const heading = page.locator('#token-bucket-in-one-picture');
    expect(await heading.evaluate((element) => element.tagName)).toBe('H2');
    expect(await heading.isVisible()).toBe(true);
    expect(problems.list()).toEqual([]);
    await context.close();
  });

  it('says what to do with an empty search, and that nothing matched', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(url('/search'));
    expect(await page.locator('main').textContent()).toContain('Type one or more words to search');
    await page.locator('#search-q').fill('zzxqv');
    await Promise.all([page.waitForURL((address) => address.search === '?q=zzxqv'), page.locator('#search-q').press('Enter')]);
    expect(await page.locator('main').textContent()).toContain('No post matches “zzxqv”');
    await context.close();
  });

  it('fits the search box inside the header at every width from 320 px, without sideways scrolling', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    for (const width of [320, 400, 640, 800, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      await page.goto(url('/'));
      expect(await page.evaluate(() => document.documentElement.scrollWidth), `${width}px`).toBeLessThanOrEqual(width);
      const form = await page.getByRole('search', { name: 'Search the site' }).boundingBox();
      const header = await page.locator('header.site-header').boundingBox();
      expect(form, `${width}px`).not.toBeNull();
      expect(form!.x + form!.width, `${width}px`).toBeLessThanOrEqual(header!.x + header!.width + 0.5);
    }
    await context.close();
  });
});
