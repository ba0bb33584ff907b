import { defineConfig, globalIgnores } from 'eslint/config';
import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  {
    // settings() is read by the entry points (app/, proxy.ts, server.ts, instrumentation*.ts, scripts/,
    // bench/) and the runtime (lib/runtime/); every other part of lib/ is handed the settings groups it uses.
    files: ['lib/**/*.{ts,tsx,mts,mjs}'],
    ignores: ['lib/runtime/**', 'lib/settings.ts'],
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
