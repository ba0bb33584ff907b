import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: the ESLint config is plain JavaScript, without types.
import { stillReadingSettings } from '../../eslint.config.mjs';

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
  const readers = libFiles('lib').filter((file) => readsSettings(fs.readFileSync(path.join(ROOT, file), 'utf8')));

  it('is, inside lib/, only the runtime and the files still waiting to be handed their groups', () => {
    const allowed = (file: string) => file.startsWith('lib/runtime/') || (stillReadingSettings as string[]).includes(file);
    expect(readers.filter((file) => !allowed(file))).toEqual([]);
  });

  it('lists no file as still waiting that no longer reads settings()', () => {
    const waiting = (stillReadingSettings as string[]).filter((file) => fs.existsSync(path.join(ROOT, file)));
    expect(waiting.filter((file) => !readers.includes(file))).toEqual([]);
  });
});
