import type { TestProject } from 'vitest/node';
import { buildSite, FIXTURE_CONTENT, freePort, startSite, type RunningSite } from '../support/site';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    contentDir: string;
    distDir: string;
    siteUrl: string;
  }
}

let site: RunningSite | undefined;

/** Builds the fixture content folder once (one post a page) and serves it with lectern's server on a loopback port. */
export async function setup(project: TestProject) {
  const port = await freePort();
  const siteUrl = `http://127.0.0.1:${port}`;
  // Agent key directories may be served on loopback by the tests, and a verified agent's budget is 20 a minute, so
  // web-bot-auth.test.ts spends it in a few requests.
  // One post a page, so the four fixture posts fill four pages of /blog and the two tagged "testing" two pages of theirs.
  // The build generates the two newest posts; the two older ones are generated on their first request, as a large
  // site's are, so every suite that reads posts reads both kinds (no background generation: the requests do it).
  const env = {
    contentDir: FIXTURE_CONTENT,
    distDir: '.next-contract',
    siteUrl,
    extraEnv: { POSTS_PER_PAGE: '1', PRERENDER_POSTS: '2', PREWARM: '0', WEB_BOT_AUTH_LOOPBACK_DIRECTORIES: '1', VERIFIED_AGENT_BUDGET: '20' },
  };
  await buildSite(env);
  site = await startSite({ ...env, port });
  project.provide('baseUrl', site.baseUrl);
  project.provide('contentDir', FIXTURE_CONTENT);
  project.provide('distDir', env.distDir);
  project.provide('siteUrl', siteUrl);
}

export async function teardown() {
  await site?.stop();
}
