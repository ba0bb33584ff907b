import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import PostalMime from 'postal-mime';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cspViolations, launch, newContext, url, watch } from './support/browser';

let browser: Browser;

beforeAll(async () => {
  browser = await launch();
});

afterAll(async () => {
  await browser?.close();
});

let addresses = 0;
function freshEmail(): string {
  addresses += 1;
  return `reader-${process.pid}-${Date.now()}-${addresses}@example.com`;
}

/** The newsletter form in the footer of every page. */
function newsletter(page: Page) {
  return page.locator('section.newsletter');
}

/**
 * The limiter's windows start at multiples of the window (10 minutes for
 * /api/subscribe), and just after a boundary the sliding window lets one more
 * request through: a test that needs a 429 keeps clear of the next boundary.
 */
async function clearOfWindowEdge(windowMs = 10 * 60_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < 20_000) await new Promise((resolve) => setTimeout(resolve, left + 500));
}

/** Uses up the context's rate-limit budget on /api/subscribe (its X-Forwarded-For is its own client address). */
async function exhaustSubscribeLimit(context: BrowserContext): Promise<void> {
  await clearOfWindowEdge();
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const response = await context.request.post(url('/api/subscribe'), { data: { email: 'not-an-address' }, failOnStatusCode: false });
    if (response.status() === 429) return;
  }
  throw new Error('/api/subscribe never answered 429');
}

/** The confirmation mail the site wrote to its outbox for an address (no SMTP_URL in the e2e server). */
async function confirmationLink(email: string): Promise<string> {
  const outbox = path.join(inject('e2eDataDir'), 'outbox');
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    for (const name of fs.existsSync(outbox) ? fs.readdirSync(outbox) : []) {
      const message = await PostalMime.parse(fs.readFileSync(path.join(outbox, name)));
      if (!message.to?.some((to) => to.address === email)) continue;
      const link = /https?:\/\/\S+\/subscribe\/confirm\?token=[\w-]+/.exec(message.text ?? '')?.[0];
      if (link) return link;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no confirmation mail for ${email} in ${outbox}`);
}

async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  return results.violations.flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${violation.help} at ${JSON.stringify(node.target)}`));
}

describe('newsletter form with JavaScript', () => {
  it('shows a field error inline, next to the field, and keeps what was typed', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const problems = await watch(page, { allowStatus: (address, status) => status === 400 && address === url('/api/subscribe') });
    await page.goto(url('/'));
    const form = newsletter(page);
    const email = form.getByLabel('Email');
    await email.fill('not-an-address');
    await form.getByRole('button', { name: 'Subscribe' }).click();

    const error = form.locator('.field-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^Email must be an email address\.?$/);
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    expect(await email.getAttribute('aria-describedby')).toBe(await error.getAttribute('id'));
    expect(await email.inputValue()).toBe('not-an-address');
    expect(page.url()).toBe(url('/'));
    expect(await axeViolations(page)).toEqual([]);
    // The error stays readable whichever theme the reader picked against the system's.
    for (const [scheme, choice] of [
      ['light', 'Dark'],
      ['dark', 'Light'],
    ] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.getByRole('group', { name: 'Colour theme' }).getByRole('button', { name: choice }).click();
      expect(await axeViolations(page), `${choice} on a ${scheme} system`).toEqual([]);
    }
    expect(problems.list()).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
  });

  it('subscribes in place, and the button behind the emailed link confirms the subscription', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const problems = await watch(page);
    await page.goto(url('/'));
    const form = newsletter(page);
    const address = freshEmail();
    await form.getByLabel('Email').fill(address);
    await form.getByLabel('Name (optional)').fill('Ada Reader');
    await form.getByRole('button', { name: 'Subscribe' }).click();

    const status = form.getByRole('status');
    await expect.poll(() => status.first().textContent()).toMatch(/Check your inbox/);
    expect(page.url()).toBe(url('/'));
    expect(problems.list()).toEqual([]);

    await page.goto(await confirmationLink(address));
    expect(await page.locator('h1').textContent()).toBe('Confirm your subscription');
    await Promise.all([page.waitForURL(url('/subscribe/confirmed')), page.locator('main').getByRole('button', { name: 'Confirm my subscription' }).click()]);
    expect(await page.locator('h1').textContent()).toBe('Subscription confirmed');
    expect(problems.list()).toEqual([]);
    expect(await cspViolations(page)).toEqual([]);
    await context.close();
  });

  it('shows the 429 message with the wait time from Retry-After', async () => {
    const context = await newContext(browser);
    await exhaustSubscribeLimit(context);
    const page = await context.newPage();
    await watch(page, { allowStatus: (address, status) => status === 429 && address === url('/api/subscribe') });
    await page.goto(url('/'));
    const form = newsletter(page);
    await form.getByLabel('Email').fill(freshEmail());
    const [response] = await Promise.all([
      page.waitForResponse((candidate) => candidate.url() === url('/api/subscribe')),
      form.getByRole('button', { name: 'Subscribe' }).click(),
    ]);
    expect(response.status()).toBe(429);
    const wait = Number(response.headers()['retry-after']);
    expect(wait).toBeGreaterThan(0);
    const status = form.locator('.form-status');
    await expect.poll(() => status.textContent()).toMatch(/Too many requests/);
    expect(await status.textContent()).toContain(`Try again in ${wait} second${wait === 1 ? '' : 's'}`);
    expect(await status.getAttribute('role')).toBe('status');
    await context.close();
  });
});

describe('newsletter form without JavaScript', () => {
  it('posts the form and lands on the result page', async () => {
    const context = await newContext(browser, { javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(url('/'));
    const form = newsletter(page);
    await form.getByLabel('Email').fill(freshEmail());
    await Promise.all([page.waitForURL(url('/subscribe/check-your-inbox')), form.getByRole('button', { name: 'Subscribe' }).click()]);
    expect(await page.locator('h1').textContent()).toBe('Check your inbox');
    await context.close();
  });

  it('answers a bad field with a readable page that names it, styled under the page policy', async () => {
    const context = await newContext(browser, { javaScriptEnabled: false });
    const page = await context.newPage();
    // From a page other than the home page, so the way back is seen to lead to it.
    await page.goto(url('/blog'));
    const form = newsletter(page);
    await form.getByLabel('Email').fill('not-an-address');
    const [response] = await Promise.all([page.waitForResponse(url('/api/subscribe')), form.getByRole('button', { name: 'Subscribe' }).click()]);
    expect(response.status()).toBe(400);
    expect(response.headers()['content-security-policy']).toMatch(/style-src 'self' 'sha256-/);
    await page.waitForLoadState();
    expect(await page.locator('li').allTextContents()).toContain('email: must be an email address');
    // The page's own <style> applied: its hash is in the policy.
    expect(await page.evaluate(() => getComputedStyle(document.body).maxWidth)).not.toBe('none');
    // The page the form was posted from, as a path of this site (the Referer is never copied as it came).
    expect(await page.getByRole('link', { name: 'Go back' }).getAttribute('href')).toBe('/blog');
    // axe runs as a script: check the same markup in a page that allows one.
    const html = await page.content();
    const checker = await (await newContext(browser)).newPage();
    await checker.setContent(html);
    expect(await axeViolations(checker)).toEqual([]);
    await checker.context().close();
    await context.close();
  });

  it('shows the 429 page with the wait time', async () => {
    const context = await newContext(browser, { javaScriptEnabled: false });
    await exhaustSubscribeLimit(context);
    const page = await context.newPage();
    await page.goto(url('/'));
    const form = newsletter(page);
    await form.getByLabel('Email').fill(freshEmail());
    const [response] = await Promise.all([page.waitForResponse(url('/api/subscribe')), form.getByRole('button', { name: 'Subscribe' }).click()]);
    expect(response.status()).toBe(429);
    const wait = Number(response.headers()['retry-after']);
    await page.waitForLoadState();
    expect(await page.locator('h1').textContent()).toMatch(/Too many requests/i);
    expect(await page.locator('main').textContent()).toContain(`Try again in ${wait} second${wait === 1 ? '' : 's'}`);
    await context.close();
  });
});

describe('support form', () => {
  const fields = { Name: 'Ada Reader', Subject: 'A question about the workshop', Message: 'Is the May session recorded?\nThanks.' };

  it('sends a message with JavaScript and confirms it in place', async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    const problems = await watch(page);
    await page.goto(url('/support'));
    const form = page.locator('main form');
    for (const [label, value] of Object.entries(fields)) await form.getByLabel(label, { exact: true }).fill(value);
    await form.getByLabel('Email', { exact: true }).fill(freshEmail());
    await form.getByRole('button', { name: 'Send message' }).click();
    await expect.poll(() => page.locator('main .form-success').textContent()).not.toBe('');
    expect(page.url()).toBe(url('/support'));
    expect(problems.list()).toEqual([]);
    await context.close();
  });

  it('sends a message without JavaScript and lands on the result page', async () => {
    const context = await newContext(browser, { javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(url('/support'));
    const form = page.locator('main form');
    for (const [label, value] of Object.entries(fields)) await form.getByLabel(label, { exact: true }).fill(value);
    await form.getByLabel('Email', { exact: true }).fill(freshEmail());
    await Promise.all([page.waitForURL(url('/support/sent')), form.getByRole('button', { name: 'Send message' }).click()]);
    expect(await page.locator('h1').textContent()).toBe('Message sent');
    await context.close();
  });
});
