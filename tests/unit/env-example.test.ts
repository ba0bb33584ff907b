import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * .env.example must list every environment variable the code reads: each
 * `process.env.X` or `process.env['X']`, and each key of a zod schema that
 * parses the environment (`const …EnvSchema = z.object({ … })`).
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCES = ['lib', 'app', 'components', 'scripts', 'server.ts', 'proxy.ts', 'next.config.ts', 'instrumentation.ts'];

function sourceFiles(entry: string): string[] {
  const full = path.join(ROOT, entry);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return /\.tsx?$/.test(entry) ? [full] : [];
  return fs.readdirSync(full).flatMap((name) => sourceFiles(path.join(entry, name)));
}

/** The text of the object literal that starts at `open` (a `{`), braces balanced. */
function objectLiteral(text: string, open: number): string {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    if (text[index] === '{') depth++;
    else if (text[index] === '}' && --depth === 0) return text.slice(open, index + 1);
  }
  throw new Error('unbalanced object literal');
}

/** Top-level UPPER_CASE keys of an object literal. */
function topLevelKeys(literal: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (const line of literal.split('\n')) {
    const key = /^\s*([A-Z][A-Z0-9_]*)\s*:/.exec(line);
    if (key?.[1] && depth === 1) keys.push(key[1]);
    for (const char of line) depth += char === '{' ? 1 : char === '}' ? -1 : 0;
  }
  return keys;
}

function variablesReadBy(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.matchAll(/process\.env(?:\.([A-Z_][A-Z0-9_]*)|\[\s*['"]([A-Z_][A-Z0-9_]*)['"]\s*\])/g)) found.add((match[1] ?? match[2])!);
  for (const match of text.matchAll(/const \w*[eE]nv\w*\s*=\s*z\s*\.(?:object|strictObject|looseObject)\(\s*\{/g)) {
    for (const key of topLevelKeys(objectLiteral(text, match.index + match[0].length - 1))) found.add(key);
  }
  return [...found];
}

function variablesInExample(): Set<string> {
  const text = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8');
  return new Set([...text.matchAll(/^(?:#\s*)?([A-Z_][A-Z0-9_]*)=/gm)].map((match) => match[1]!));
}

const read = new Map<string, string[]>();
for (const file of SOURCES.flatMap(sourceFiles)) {
  for (const name of variablesReadBy(fs.readFileSync(file, 'utf8'))) read.set(name, [...(read.get(name) ?? []), path.relative(ROOT, file)]);
}

describe('.env.example', () => {
  it('finds the variables of process.env reads and of the zod environment schemas', () => {
    expect(variablesReadBy("const a = process.env.ONE; const b = process.env['TWO'];")).toEqual(['ONE', 'TWO']);
    const schema =
      'const limitsEnvSchema = z.object({\n  REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),\n  NESTED: z.object({\n    INNER: z.string(),\n  }),\n});';
    expect(variablesReadBy(schema)).toEqual(['REDIS_URL', 'NESTED']);
    // The scan sees lib/settings.ts, whose variables are only zod keys or spread reads.
    expect([...read.keys()]).toEqual(
      expect.arrayContaining(['SITE_URL', 'CONTENT_DIR', 'REDIS_URL', 'UPSTASH_REDIS_REST_TOKEN', 'RATE_LIMIT_WINDOW_SCALE', 'TRUST_PROXY', 'PORT']),
    );
  });

  it('lists every environment variable the code reads', () => {
    const listed = variablesInExample();
    const missing = [...read].filter(([name]) => !listed.has(name)).map(([name, files]) => `${name} (read in ${files.join(', ')})`);
    expect(missing, `.env.example lacks: ${missing.join('; ')}`).toEqual([]);
  });

  it('lists nothing the code does not read', () => {
    expect([...variablesInExample()].filter((name) => !read.has(name))).toEqual([]);
  });
});
