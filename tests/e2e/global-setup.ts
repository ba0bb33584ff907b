import fs from 'node:fs';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildSite, freePort, ROOT, startSite, type RunningSite } from '../support/site';

declare module 'vitest' {
  export interface ProvidedContext {
    e2eBaseUrl: string;
    e2eDataDir: string;
  }
}

const CONTENT = path.join(ROOT, 'content');
const DIST = '.next-e2e';
const E2E_POSTS_PER_PAGE = 5;
/** Written after a build: the port SITE_URL was built with, so E2E_REUSE_BUILD=1 can serve the same build again. */
const STAMP = path.join(ROOT, DIST, 'lectern-e2e.json');

let site: RunningSite | undefined;

/**
 * Builds the real content folder (what the author publishes) into .next-e2e and
 * serves it with lectern's server on a loopback port, for the browser tests.
 * SITE_URL is that address, so canonical URLs, Open Graph images and the
 * sitemap point at the site under test.
 *
 * TRUST_PROXY=1 stands for the proxy a deployment has in front: each browser
 * context names its own client address in X-Forwarded-For, so the form tests
 * have separate rate-limit budgets.
 *
 * STRIPE_SECRET_KEY is set, so the pricing page shows its buy forms (tests/e2e/pricing-phone.test.ts).
 *
 * POSTS_PER_PAGE is small enough that /blog and the largest tag have later
 * pages, so the browser tests read the pagination pages too.
 */
export async function setup(project: TestProject) {
  let port: number | undefined;
  if (process.env.E2E_REUSE_BUILD === '1' && fs.existsSync(STAMP)) {
    port = (JSON.parse(fs.readFileSync(STAMP, 'utf8')) as { port: number }).port;
  }
  const rebuild = port === undefined;
  port ??= await freePort();
  const siteUrl = `http://127.0.0.1:${port}`;
  // A Stripe key (never used: its API is a closed loopback port), so the pricing page has its buy forms, as on a site that sells.
  const payments = { STRIPE_SECRET_KEY: 'sk_test_e2e', STRIPE_API_URL: 'http://127.0.0.1:9' };
  const env = { contentDir: CONTENT, distDir: DIST, siteUrl, extraEnv: { TRUST_PROXY: '1', POSTS_PER_PAGE: String(E2E_POSTS_PER_PAGE), ...payments } };
  if (rebuild) {
    await buildSite(env);
    fs.writeFileSync(STAMP, JSON.stringify({ port }));
  }
  site = await startSite({ ...env, port });
  project.provide('e2eBaseUrl', site.baseUrl);
  project.provide('e2eDataDir', site.dataDir);
}

export async function teardown() {
  await site?.stop();
}
