import AxeBuilder from '@axe-core/playwright';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cspViolations, launch, layoutShift, newContext, url, VIEWPORTS, watch } from './support/browser';

let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

describe('pagination', () => {
  it('goes from /blog to page 2 and back with the pagination links', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const problems = await watch(page);
    await page.goto(url('/blog'));
    const nav = page.getByRole('navigation', { name: 'Pagination' });
    const firstPosts = await page.locator('.post-list h2 a').allTextContents();
    expect(await nav.locator('[aria-current="page"]').textContent()).toBe('Page 1');

    await nav.getByRole('link', { name: 'Older posts' }).click();
    await page.waitForURL(url('/blog/page/2'));
    await expect.poll(() => page.locator('h1').textContent()).toMatch(/^Blog, page 2 of \d+$/);
    expect(await nav.locator('[aria-current="page"]').textContent()).toBe('Page 2');
    const secondPosts = await page.locator('.post-list h2 a').allTextContents();
    expect(secondPosts.length).toBeGreaterThan(0);
    expect(secondPosts.filter((title) => firstPosts.includes(title))).toEqual([]);

    await nav.getByRole('link', { name: 'Newer posts' }).click();
    await page.waitForURL(url('/blog'));
    await expect.poll(() => page.locator('h1').textContent()).toBe('Blog');
    expect(await page.locator('.post-list h2 a').allTextContents()).toEqual(firstPosts);
    expect(problems.list()).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
  });

  it('follows the Older posts link with the Enter key', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.goto(url('/blog'));
    const older = page.getByRole('navigation', { name: 'Pagination' }).getByRole('link', { name: 'Older posts' });
    await older.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(url('/blog/page/2'));
    await context.close();
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`page 2 has no axe violations (${scheme})`, async () => {
      const context = await newContext(browser, { colorScheme: scheme });
      const page = await context.newPage();
      await page.goto(url('/blog/page/2'), { waitUntil: 'load' });
      const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']).analyze();
      expect(
        results.violations.map((violation) => `${violation.id}: ${violation.help} at ${violation.nodes.map((node) => JSON.stringify(node.target)).join(', ')}`),
      ).toEqual([]);
      await context.close();
    });
  }

  it.each(['phone', 'desktop'] as const)('page 2 does not shift its layout while loading (%s)', async (size) => {
    const context = await newContext(browser, { viewport: VIEWPORTS[size] });
    const page = await context.newPage();
    await page.goto(url('/blog/page/2'), { waitUntil: 'networkidle' });
    const shift = await layoutShift(page);
    expect(shift.moved).toEqual([]);
    expect(shift.total).toBe(0);
    await context.close();
  });
});
