import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentFingerprint } from '@/lib/content/fingerprint';

let root: string;
const file = (relative: string) => path.join(root, relative);

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-fingerprint-'));
  fs.mkdirSync(file('posts'));
  fs.writeFileSync(file('posts/a.md'), 'first');
  fs.writeFileSync(file('site.yaml'), 'name: x');
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('contentFingerprint', () => {
  it('stays the same while nothing changes', () => {
    expect(contentFingerprint(root)).toBe(contentFingerprint(root));
  });

  it.each([
    ['an edit', () => fs.writeFileSync(file('posts/a.md'), 'second, longer')],
    [
      'an edit of the same size',
      () => {
        fs.writeFileSync(file('posts/a.md'), 'FIRST');
        fs.utimesSync(file('posts/a.md'), new Date(), new Date(Date.now() + 5000));
      },
    ],
    ['a new file', () => fs.writeFileSync(file('posts/b.md'), 'new')],
    ['a rename', () => fs.renameSync(file('posts/a.md'), file('posts/c.md'))],
    ['a removal', () => fs.rmSync(file('posts/a.md'))],
    [
      'a new folder with a file',
      () => {
        fs.mkdirSync(file('apps'));
        fs.writeFileSync(file('apps/x.md'), 'app');
      },
    ],
  ])('changes with %s', (_, change) => {
    const before = contentFingerprint(root);
    change();
    expect(contentFingerprint(root)).not.toBe(before);
  });

  it('has a value for a folder that does not exist', () => {
    expect(contentFingerprint(path.join(root, 'missing'))).toMatch(/^[\w-]+$/);
  });
});
