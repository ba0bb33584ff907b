import { defineConfig, globalIgnores } from 'eslint/config';
import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

/**
 * Exceptions to the rule below, to be emptied: each file still reads settings() itself
 * (tests/unit/settings-readers.test.ts fails when one no longer does): the content's and the clock's
 * core, called with no arguments from nearly every page, feed and file (README, "Layout").
 */
export const stillReadingSettings = [
  // clock(), absoluteUrl(), publishedPosts(), builtList(): the clock's offset, the site URL every absolute
  // link is made from, the content folder and the build's facts, read where Next's pages, feeds and
  // metadata routes (and the parts of lib/ they call) ask for them
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
