import AxeBuilder from '@axe-core/playwright';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, newContext, url, VIEWPORTS } from './support/browser';
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

type Violation = { id: string; impact?: string | null; help: string; nodes: { target: unknown; failureSummary?: string }[] };

function describeViolations(violations: Violation[]): string[] {
  return violations.flatMap((violation) =>
    violation.nodes.map(
      (node) =>
        `${violation.id} (${violation.impact ?? 'n/a'}): ${violation.help} at ${JSON.stringify(node.target)}${node.failureSummary ? `\n    ${node.failureSummary.replace(/\n/g, '\n    ')}` : ''}`,
    ),
  );
}

/**
 * axe-core on every page template (WCAG 2.x A and AA, and axe's best
 * practices), in both themes and at phone and desktop widths: zero violations.
 */
describe('accessibility (axe)', () => {
  for (const scheme of ['light', 'dark'] as const) {
    for (const size of ['desktop', 'phone'] as const) {
      it(`every page template has no violations (${scheme}, ${size})`, { timeout: 180_000 }, async () => {
        const context = await newContext(browser, { colorScheme: scheme, viewport: VIEWPORTS[size] });
        const page = await context.newPage();
        const found: string[] = [];
        for (const entry of pages) {
          await page.goto(url(entry.path), { waitUntil: 'load' });
          const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice']).analyze();
          found.push(...describeViolations(results.violations as Violation[]).map((line) => `${entry.path}: ${line}`));
        }
        expect(found).toEqual([]);
        await context.close();
      });
    }
  }

  it('the pages a reader chooses a theme on have no violations in the other theme either', { timeout: 240_000 }, async () => {
    // System dark, reader chose light (and the reverse): colours come from data-theme, not the media query.
    const found: string[] = [];
    for (const [scheme, choice] of [
      ['dark', 'light'],
      ['light', 'dark'],
    ] as const) {
      const context = await newContext(browser, { colorScheme: scheme });
      await context.addInitScript((theme) => localStorage.setItem('theme', theme), choice);
      const page = await context.newPage();
      for (const entry of pages) {
        await page.goto(url(entry.path), { waitUntil: 'load' });
        const results = await new AxeBuilder({ page }).withRules(['color-contrast', 'link-in-text-block']).analyze();
        found.push(...describeViolations(results.violations as Violation[]).map((line) => `${entry.path} (${choice} on ${scheme}): ${line}`));
      }
      await context.close();
    }
    expect(found).toEqual([]);
  });
});
