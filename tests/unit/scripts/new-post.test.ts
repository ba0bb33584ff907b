import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { splitFrontmatter } from '@/lib/content/frontmatter';
import { loadContent } from '@/lib/content/load';
import { postFrontmatterSchema } from '@/lib/content/schema';
import { runScript } from './run-script';

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/content');
let contentDir: string;

beforeEach(() => {
  contentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-new-post-'));
  fs.cpSync(FIXTURE, contentDir, { recursive: true });
});
afterEach(() => fs.rmSync(contentDir, { recursive: true, force: true }));

describe('npm run new-post', () => {
  it('writes a draft dated today whose frontmatter passes validation, and prints its path', () => {
    const result = runScript('new-post.ts', ['Caching: "the hard parts"'], contentDir);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const file = path.join(contentDir, 'posts', 'caching-the-hard-parts.md');
    expect(result.stdout.trim()).toBe(file);
    const { data } = splitFrontmatter(fs.readFileSync(file, 'utf8'));
    expect(postFrontmatterSchema.parse(data)).toMatchObject({
      title: 'Caching: "the hard parts"',
      draft: true,
      date: new Date().toISOString().slice(0, 10),
    });
    // The whole folder still loads with the build's rules, and the new post is there as a draft.
    expect(loadContent(contentDir).posts.find((post) => post.slug === 'caching-the-hard-parts')?.draft).toBe(true);
  });

  it('refuses to overwrite an existing post and leaves it as it was', () => {
    const file = path.join(contentDir, 'posts', 'alpha-post.md');
    const before = fs.readFileSync(file, 'utf8');
    const result = runScript('new-post.ts', ['Alpha post'], contentDir);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('alpha-post.md already exists');
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });

  it('asks for a title when given none, and for another one when no slug can be made', () => {
    expect(runScript('new-post.ts', [], contentDir)).toMatchObject({ status: 1, stderr: expect.stringContaining('Usage: npm run new-post') });
    expect(runScript('new-post.ts', ['日本語'], contentDir)).toMatchObject({ status: 1, stderr: expect.stringContaining('No slug can be made') });
    expect(fs.readdirSync(path.join(contentDir, 'posts')).sort()).toEqual(fs.readdirSync(path.join(FIXTURE, 'posts')).sort());
  });
});
