import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runScript } from './run-script';

const FIXTURE = path.resolve(import.meta.dirname, '../../fixtures/content');
let contentDir: string;

beforeEach(() => {
  contentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-check-'));
  fs.cpSync(FIXTURE, contentDir, { recursive: true });
});
afterEach(() => fs.rmSync(contentDir, { recursive: true, force: true }));

describe('npm run check', () => {
  it('exits 0 with a one-line summary when the content is valid', () => {
    const result = runScript('check.ts', [], contentDir);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim().split('\n')).toEqual([
      'Content is valid: 6 posts (4 published, 1 draft, 1 scheduled), 1 app, 5 products.',
      'Scheduled posts (America/New_York, then UTC):',
      // A date-only post goes live at midnight in the site's time zone.
      '  2999-01-01 00:00 America/New_York (2999-01-01 05:00 UTC)  future-post  "Future post"',
    ]);
  });

  it('lists the times in UTC alone when site.yaml sets no timezone (UTC then)', () => {
    const site = path.join(contentDir, 'site.yaml');
    fs.writeFileSync(site, fs.readFileSync(site, 'utf8').replace(/^timezone: .*\n/m, ''));
    const lines = runScript('check.ts', [], contentDir).stdout.trim().split('\n');
    expect(lines.slice(1)).toEqual(['Scheduled posts (times in UTC):', '  2999-01-01 00:00 UTC  future-post  "Future post"']);
  });

  it('lists scheduled posts soonest first, at their minute', () => {
    const post = (slug: string, date: string) => `---\ntitle: ${slug}\ndescription: d\ndate: ${date}\n---\nBody.\n`;
    fs.writeFileSync(path.join(contentDir, 'posts', 'monday.md'), post('monday', '2998-03-02T09:00:00+01:00'));
    const lines = runScript('check.ts', [], contentDir).stdout.trim().split('\n');
    expect(lines.slice(2)).toEqual([
      '  2998-03-02 03:00 America/New_York (2998-03-02 08:00 UTC)  monday  "monday"',
      '  2999-01-01 00:00 America/New_York (2999-01-01 05:00 UTC)  future-post  "Future post"',
    ]);
  });

  it('exits 1 listing every problem of every file, as the build does', () => {
    fs.writeFileSync(path.join(contentDir, 'posts', 'alpha-post.md'), '---\ntitle: Alpha\ndrfat: true\ndate: 2025-13-01\n---\nBody.\n');
    fs.writeFileSync(path.join(contentDir, 'posts', 'Bad_Name.md'), '---\ntitle: x\n---\n');
    fs.writeFileSync(path.join(contentDir, 'apps', 'fixture-app.md'), '---\nname: App\n---\n');
    const result = runScript('check.ts', [], contentDir);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/^Content has \d+ problems:$/);
    expect(result.stderr).toMatch(/alpha-post\.md › drfat: is not a known key/);
    expect(result.stderr).toMatch(/alpha-post\.md › date: must be YYYY-MM-DD/);
    expect(result.stderr).toMatch(/alpha-post\.md › description: /);
    expect(result.stderr).toMatch(/Bad_Name\.md: file name "Bad_Name" is not a valid slug/);
    expect(result.stderr).toMatch(/fixture-app\.md › version: /);
    expect(result.stderr).toMatch(/fixture-app\.md › download: /);
  });

  it('warns, and still exits 0, when a post’s frontmatter would read as a heading in its markdown twin', () => {
    const file = path.join(contentDir, 'posts', 'alpha-post.md');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/\n\n---\n/, '\n---\n'));
    const result = runScript('check.ts', [], contentDir);
    expect(result.status).toBe(0);
    const warnings = result.stderr.trim().split('\n');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^Warning: .*posts\/alpha-post\.md: .*heading.*blank line before the closing "---"/);
    expect(result.stdout).toMatch(/^Content is valid/);
  });
});
