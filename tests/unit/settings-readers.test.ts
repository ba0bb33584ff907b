import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');

/** A value import of settings() (or settingsOrExit) from lib/settings.ts; `import type` and nodeEnv are not reads. */
const READS_SETTINGS = /^import\s+\{([^}]*)\}\s+from\s+'(?:\.{1,2}\/)+(?:[\w-]+\/)*settings';/m;

function libFiles(folder: string): string[] {
  return fs.readdirSync(path.join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const file = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return libFiles(file);
    return /\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

function readsSettings(source: string): boolean {
  const names = READS_SETTINGS.exec(source)?.[1] ?? '';
  return names.split(',').some((name) => /^\s*(?:settings|settingsOrExit)\s*$/.test(name.replace(/\s+as\s+\w+/, '')));
}

describe('who reads settings()', () => {
  it('is, inside lib/, only the runtime (lib/runtime/) and lib/settings.ts itself', () => {
    const readers = libFiles('lib').filter((file) => readsSettings(fs.readFileSync(path.join(ROOT, file), 'utf8')));
    expect(readers.filter((file) => !file.startsWith('lib/runtime/'))).toEqual([]);
  });
});
