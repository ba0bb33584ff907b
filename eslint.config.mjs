import { defineConfig, globalIgnores } from 'eslint/config';
import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

/**
 * Temporary exceptions to the rule below, to be emptied: each file still reads settings() itself
 * (tests/unit/settings-readers.test.ts fails when one no longer does). The first three are being
 * rewritten with the runtime and the one list of reactions to posts going live; the others are
 * reached from them, or from server.ts, through calls that pass no settings yet (named above each).
 */
export const stillReadingSettings = [
  'lib/publishing/publish.ts',
  'lib/publishing/route.ts',
  'lib/server/search-thread.ts',
  // submitToIndexNow(urls) in lib/publishing/publish.ts
  'lib/indexnow/submit.ts',
  // mcpPosts(searchThread, () => services.limiter) in server.ts, through lib/server/mcp-posts.ts
  'lib/mcp/handler.ts',
  // jsonResponse(…) in lib/publishing/route.ts: Last-Modified is the build's time unless given
  'lib/http/responses.ts',
  // clock(), publishedPosts(), builtList() and problem() in the files above: the clock's offset, the
  // content folder, the build's facts and the site URL every absolute link is made from
  'lib/clock.ts',
  'lib/config.ts',
  'lib/content/index.ts',
  'lib/content/published-set.ts',
  'lib/content/build-cache.ts',
];

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  {
    // settings() is read by the entry points (app/, proxy.ts, server.ts, instrumentation*.ts, scripts/,
    // bench/) and the runtime (lib/runtime/); every other part of lib/ is handed the settings groups it uses.
    files: ['lib/**/*.{ts,tsx,mts,mjs}'],
    ignores: ['lib/runtime/**', 'lib/settings.ts', ...stillReadingSettings],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '(^|/)settings$',
              importNames: ['settings', 'settingsOrExit'],
              message: 'lib/ is handed the settings groups it uses by an entry point or the runtime (lib/runtime/); take them as a parameter.',
            },
          ],
        },
      ],
    },
  },
  globalIgnores(['.next/**', '.next-*/**', 'node_modules/**', 'next-env.d.ts', 'test-results/**']),
]);
