import path from 'node:path';
import { vi } from 'vitest';

/** The base URL the fixture content is served under in unit tests. */
export const FIXTURE_SITE = 'https://fixture.example';

/** The published fixture posts, newest first (a date tie goes by slug): no draft, no post dated in the future. */
export const PUBLISHED_SLUGS = ['escaping-post', 'beta-post', 'gamma-post', 'alpha-post'];

/**
 * Points the site's settings at tests/fixtures/content. Call it at the top of
 * a test file, before anything reads the settings (they are read once).
 */
export function withFixtureContent({ postsPerPage = 20 } = {}) {
  vi.stubEnv('SITE_URL', FIXTURE_SITE);
  vi.stubEnv('CONTENT_DIR', path.resolve(import.meta.dirname, '../fixtures/content'));
  vi.stubEnv('POSTS_PER_PAGE', String(postsPerPage));
}
