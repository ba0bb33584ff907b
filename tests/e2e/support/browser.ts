import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { inject } from 'vitest';
import { ROOT } from '../../support/site';

/** Debian's Chromium (scripts/install-test-tools.sh installs it); Playwright's own browser downloads are never used. */
export const CHROMIUM_PATH = process.env.CHROME_PATH || '/usr/bin/chromium';

/**
 * Flags for a headless Chromium on a machine without network: no GPU, and none
 * of the background fetches (updates, sync, field trials) that would only fail.
 */
export const CHROME_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const SCREENSHOT_DIR = path.join(ROOT, 'test-results/screenshots');

export const VIEWPORTS = {
  phone: { width: 390, height: 844 },
  narrow: { width: 320, height: 640 },
  desktop: { width: 1366, height: 900 },
} as const;

export function baseUrl(): string {
  return inject('e2eBaseUrl');
}

export function url(pathname: string): string {
  return new URL(pathname, baseUrl()).href;
}

export function launch(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH))
    throw new Error(`No Chromium at ${CHROMIUM_PATH}: run bash scripts/install-test-tools.sh (it installs Debian's chromium) or set CHROME_PATH`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROME_FLAGS, headless: true });
}

let nextClient = 0;
/**
 * A client address for X-Forwarded-For (the e2e server trusts one proxy hop), so
 * each context has its own rate-limit budget. TEST-NET-3, never routed.
 */
export function clientAddress(): string {
  nextClient += 1;
  return `203.0.113.${((process.pid + nextClient * 7) % 250) + 1}`;
}

export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: VIEWPORTS.desktop,
    reducedMotion: 'reduce',
    ...options,
    extraHTTPHeaders: { 'X-Forwarded-For': clientAddress(), ...options.extraHTTPHeaders },
  });
  // For layoutShift: the start of the second frame after the parser finished the document.
  await context.addInitScript(() => {
    document.addEventListener('readystatechange', () => {
      if (document.readyState !== 'interactive') return;
      requestAnimationFrame(() =>
        requestAnimationFrame((frame) => {
          (window as unknown as { __parsedFrame?: number }).__parsedFrame = frame;
        }),
      );
    });
  });
  return context;
}

export type Problems = { list: () => string[] };

/**
 * Everything a reader would not want to happen on a page: console errors,
 * uncaught exceptions, Content-Security-Policy violations, failed requests and
 * error statuses of the page's own resources.
 */
export async function watch(page: Page, options: { allowStatus?: (url: string, status: number) => boolean } = {}): Promise<Problems> {
  const problems: string[] = [];
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const list = ((window as unknown as { __cspViolations?: string[] }).__cspViolations ??= []);
      list.push(`${event.violatedDirective} blocked ${event.blockedURI || 'inline'} (${event.sample || event.sourceFile}:${event.lineNumber})`);
    });
  });
  page.on('console', (message) => {
    // Error statuses are judged by the response listener below, which knows which ones a test expects.
    if (message.type() !== 'error' || /^Failed to load resource: the server responded with a status of \d+/.test(message.text())) return;
    problems.push(`console error on ${page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`uncaught on ${page.url()}: ${error.message}`));
  page.on('requestfailed', (request) => {
    const failure = request.failure()?.errorText ?? '';
    // A navigation or prefetch abandoned for the next one is not a failure of the site.
    if (failure.includes('ERR_ABORTED')) return;
    problems.push(`request failed: ${request.url()} ${failure}`);
  });
  page.on('response', (response) => {
    const status = response.status();
    if (status < 400 || !response.url().startsWith(baseUrl())) return;
    if (options.allowStatus?.(response.url(), status)) return;
    problems.push(`${status} for ${response.url()}`);
  });
  return {
    list: () => [...problems],
  };
}

/** CSP violations the page has reported since it loaded (the listener is installed before any page script runs). */
export async function cspViolations(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? []);
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

export type LayoutShift = { total: number; moved: string[] };

/**
 * The layout shift of the loaded page (Cumulative Layout Shift without the
 * session windows: every shift not caused by input, summed), with what moved.
 * Shifts are buffered from the start of the page's load. A shift painted
 * before the parser had finished the document, or in the first frame after it
 * finished, is left out: that is Chromium painting a half-parsed page when the
 * test machine starves it of CPU (a tag pill drawn before its text is parsed,
 * then, in the next frame, with it), which a page cannot cause or prevent.
 * What a page can do wrong (late images, styles or fonts, scripts and
 * hydration changing what is shown) moves it after that point. The first frame
 * after parsing ends where the second begins, which newContext's init script
 * records (`__parsedFrame`); `domInteractive` stands in where it did not run.
 */
export function layoutShift(page: Page): Promise<LayoutShift> {
  return page.evaluate(
    () =>
      new Promise<{ total: number; moved: string[] }>((resolve) => {
        type Source = { node?: Node | null; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly };
        type Shift = PerformanceEntry & { value: number; hadRecentInput: boolean; sources: Source[] };
        const shifts: Shift[] = [];
        new PerformanceObserver((list) => {
          for (const item of list.getEntries() as Shift[]) if (!item.hadRecentInput) shifts.push(item);
        }).observe({ type: 'layout-shift', buffered: true });
        setTimeout(() => {
          const [navigation] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
          const parsed = Math.max(navigation?.domInteractive ?? 0, (window as unknown as { __parsedFrame?: number }).__parsedFrame ?? 0);
          let total = 0;
          const moved: string[] = [];
          for (const item of shifts) {
            if (item.startTime < parsed) continue;
            total += item.value;
            for (const source of item.sources) {
              const node = source.node instanceof Element ? `${source.node.tagName.toLowerCase()}.${source.node.className}` : String(source.node?.nodeName);
              const rect = (r: DOMRectReadOnly) => `${Math.round(r.x)},${Math.round(r.y)} ${Math.round(r.width)}x${Math.round(r.height)}`;
              moved.push(`${node} ${rect(source.previousRect)} → ${rect(source.currentRect)} at ${Math.round(item.startTime)} ms`);
            }
          }
          resolve({ total, moved });
        }, 300);
      }),
  );
}
