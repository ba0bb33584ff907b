import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/site';
import { cspViolations, launch, layoutShift, newContext, url, VIEWPORTS, watch } from './support/browser';
import { templatePages, type TemplatePage } from './support/pages';

let browser: Browser;
let pages: TemplatePage[];

beforeAll(async () => {
  browser = await launch();
  pages = await templatePages();
});

afterAll(async () => {
  await browser?.close();
});

const LIGHT_BG = 'rgb(251, 250, 247)';
const DARK_BG = 'rgb(22, 23, 27)';

function backgroundOf(page: Page): Promise<string> {
  return page.evaluate(() => getComputedStyle(document.body).backgroundColor);
}

describe('reading', () => {
  it('reads a post from the home page', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const problems = await watch(page);
    await page.goto(url('/'));
    const first = page.locator('section[aria-labelledby="latest"] .post-list a').first();
    const title = (await first.textContent())?.trim() ?? '';
    expect(title).not.toBe('');
    await first.click();
    await page.waitForURL(/\/blog\/[a-z0-9-]+$/);
    await expect.poll(() => page.locator('h1').textContent()).toBe(title);
    await expect.poll(() => page.title()).toContain(title);
    expect(await page.locator('article.post .prose p').count()).toBeGreaterThan(2);
    expect(problems.list()).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
  });

  it('follows the markdown link to the post exactly as written', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const { posts } = (await (await fetch(url('/api/blog'))).json()) as { posts: { slug: string }[] };
    const slug = posts[0]!.slug;
    await page.goto(url(`/blog/${slug}`));
    const [response] = await Promise.all([
      page.waitForResponse((candidate) => candidate.url() === url(`/blog/${slug}.md`)),
      page.getByRole('link', { name: 'Read this post as markdown' }).click(),
    ]);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('text/markdown; charset=utf-8');
    expect(await response.text()).toBe(fs.readFileSync(path.join(ROOT, 'content/posts', `${slug}.md`), 'utf8'));
    await expect.poll(() => page.url()).toBe(url(`/blog/${slug}.md`));
    expect(await page.locator('body').innerText()).toContain('title:');
    await context.close();
  });
});

describe('theme', () => {
  it('switches between auto, light and dark, remembers the choice and applies it before the first paint', async () => {
    const context = await newContext(browser, { colorScheme: 'light' });
    const page = await context.newPage();
    const problems = await watch(page);
    // Records the theme at the moment <body> is created: nothing can have been painted before.
    await page.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (!document.body) return;
        (window as unknown as { __themeAtBody?: string | null }).__themeAtBody = document.documentElement.getAttribute('data-theme');
        observer.disconnect();
      }).observe(document, { childList: true, subtree: true });
    });
    const post = pages.find((entry) => entry.template === '/blog/[slug]')!.path;
    await page.goto(url(post));
    expect(await page.getAttribute('html', 'data-theme')).toBe('system');
    expect(await backgroundOf(page)).toBe(LIGHT_BG);
    const codeLight = await page
      .locator('.shiki span span')
      .first()
      .evaluate((node) => getComputedStyle(node).color);

    const switcher = page.getByRole('group', { name: 'Colour theme' });
    await switcher.getByRole('button', { name: 'Dark' }).click();
    expect(await page.getAttribute('html', 'data-theme')).toBe('dark');
    expect(await backgroundOf(page)).toBe(DARK_BG);
    await expect.poll(() => switcher.getByRole('button', { name: 'Dark' }).getAttribute('aria-pressed')).toBe('true');
    expect(
      await page
        .locator('.shiki span span')
        .first()
        .evaluate((node) => getComputedStyle(node).color),
    ).not.toBe(codeLight);
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('dark');

    await page.reload();
    expect(await page.evaluate(() => (window as unknown as { __themeAtBody?: string }).__themeAtBody)).toBe('dark');
    expect(await backgroundOf(page)).toBe(DARK_BG);

    // The choice holds on every page, and client navigation keeps it.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Blog' }).click();
    await page.waitForURL(url('/blog'));
    expect(await backgroundOf(page)).toBe(DARK_BG);

    await switcher.getByRole('button', { name: 'Auto' }).click();
    expect(await page.getAttribute('html', 'data-theme')).toBe('system');
    expect(await backgroundOf(page)).toBe(LIGHT_BG);
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBeNull();

    // Auto follows the system: dark when the system is dark, unless the reader chose light.
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await backgroundOf(page)).toBe(DARK_BG);
    await switcher.getByRole('button', { name: 'Light' }).click();
    expect(await backgroundOf(page)).toBe(LIGHT_BG);
    await page.reload();
    expect(await page.evaluate(() => (window as unknown as { __themeAtBody?: string }).__themeAtBody)).toBe('light');
    expect(await backgroundOf(page)).toBe(LIGHT_BG);

    expect(problems.list()).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
  });

  it('follows the system without JavaScript, with no switch that cannot work', async () => {
    const context = await newContext(browser, { javaScriptEnabled: false, colorScheme: 'dark' });
    const page = await context.newPage();
    await page.goto(url('/'));
    expect(await backgroundOf(page)).toBe(DARK_BG);
    expect(await page.locator('.theme-switch').isVisible()).toBe(false);
    await context.close();
  });
});

describe('every page template', () => {
  // These three visit every page template: about 30 s each on a quiet machine.
  it('loads without console errors, failed requests or Content-Security-Policy violations, also after client navigation', { timeout: 150_000 }, async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const notFound = new Set(pages.filter((entry) => entry.status === 404).map((entry) => url(entry.path)));
    const problems = await watch(page, { allowStatus: (address, status) => status === 404 && notFound.has(address) });
    for (const entry of pages) {
      const response = await page.goto(url(entry.path), { waitUntil: 'networkidle' });
      expect(response?.status(), entry.path).toBe(entry.status);
      expect(await cspViolations(page), entry.path).toEqual([]);
    }
    // Client-side navigation renders new pages under the first page's policy.
    await page.goto(url('/'), { waitUntil: 'networkidle' });
    for (const name of ['Blog', 'Pricing', 'Apps']) {
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }).click();
      await page.waitForURL(url(`/${name.toLowerCase()}`));
    }
    await page.getByRole('link', { name: 'Blog' }).first().click();
    await page.waitForURL(url('/blog'));
    await page.locator('.post-list a').first().click();
    await page.waitForURL(/\/blog\/[a-z0-9-]+$/);
    await page.locator('.shiki').first().waitFor();
    expect(await cspViolations(page)).toEqual([]);
    expect(problems.list()).toEqual([]);
    await context.close();
  });

  it('fits a 320 px wide screen without sideways scrolling', async () => {
    const context = await newContext(browser, { viewport: VIEWPORTS.narrow });
    const page = await context.newPage();
    const wide: string[] = [];
    for (const entry of pages) {
      await page.goto(url(entry.path));
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      if (width > VIEWPORTS.narrow.width) wide.push(`${entry.path}: ${width}px`);
    }
    expect(wide).toEqual([]);
    await context.close();
  });

  it.each(['phone', 'desktop'] as const)('does not shift its layout while loading (%s)', { timeout: 150_000 }, async (size) => {
    const context = await newContext(browser, { viewport: VIEWPORTS[size] });
    const page = await context.newPage();
    const shifts: string[] = [];
    for (const entry of pages) {
      await page.goto(url(entry.path), { waitUntil: 'networkidle' });
      const shift = await layoutShift(page);
      if (shift.total > 0) shifts.push(`${entry.path}: ${shift.total.toFixed(4)} (${shift.moved.join('; ')})`);
    }
    expect(shifts).toEqual([]);
    await context.close();
  });

  it('shows where the keyboard is: a skip link, then a visible focus ring on every stop', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const post = pages.find((entry) => entry.template === '/blog/[slug]')!.path;
    await page.goto(url(post));
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    expect(await skip.evaluate((node) => node === document.activeElement)).toBe(true);
    const box = await skip.boundingBox();
    expect(box && box.x >= 0 && box.y >= 0).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => location.hash)).toBe('#main');

    const unringed: string[] = [];
    for (let stop = 0; stop < 25; stop += 1) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        if (!element || element === document.body) return null;
        const style = getComputedStyle(element);
        const ringed = style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) >= 2;
        return { ringed, name: `${element.tagName.toLowerCase()} ${(element.textContent ?? '').trim().slice(0, 40)}` };
      });
      if (focused && !focused.ringed) unringed.push(focused.name);
    }
    expect(unringed).toEqual([]);
    await context.close();
  });
});

describe('Open Graph images', () => {
  it.each(['/', 'post'])('%s has a 1200×630 PNG card generated at build', async (which) => {
    const pathname = which === 'post' ? pages.find((entry) => entry.template === '/blog/[slug]')!.path : which;
    const html = await (await fetch(url(pathname))).text();
    const image = /<meta property="og:image" content="([^"]+)"/.exec(html)?.[1];
    expect(image, pathname).toBeDefined();
    expect(new URL(image!).origin).toBe(new URL(url('/')).origin);
    if (which === 'post') expect(new URL(image!).pathname).toBe(`${pathname}/opengraph-image`);
    const response = await fetch(image!);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await response.arrayBuffer());
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
    expect(html).toMatch(/<meta name="twitter:card" content="summary_large_image"\/>/);
  });
});
