import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { attempt, email, line, linkToken, slug } from '@/lib/write-routes/fields';

const errorOf = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? undefined : result.error.issues[0]?.message;
};

describe('write-route fields', () => {
  it('take an email address trimmed, up to 254 characters', () => {
    expect(email.parse('  reader@example.com ')).toBe('reader@example.com');
    expect(errorOf(email, undefined)).toBe('is required');
    expect(errorOf(email, 42)).toBe('must be an email address');
    expect(errorOf(email, 'reader')).toBe('must be an email address');
    expect(errorOf(email, `${'a'.repeat(250)}@example.com`)).toBe('must be at most 254 characters');
  });

  it('take one line of text, never a control character that could start a mail header', () => {
    const subject = line(10);
    expect(subject.parse(' Hello ')).toBe('Hello');
    expect(errorOf(subject, '   ')).toBe('must not be empty');
    expect(errorOf(subject, 'x'.repeat(11))).toBe('must be at most 10 characters');
    expect(errorOf(subject, 'Hi\nBcc: x')).toBe('must be a single line of text');
  });

  it('take a slug, an attempt id and a link token only in their shapes', () => {
    expect(errorOf(slug('bundle'), 'Not A Slug')).toBe('must be the slug of a bundle');
    expect(attempt.parse(undefined)).toBeUndefined();
    expect(errorOf(attempt, 'short')).toBe('must be 16 to 64 letters, digits, - or _');
    expect(errorOf(linkToken, 'has spaces in it, sixteen+')).toBe('must be the token from the email link');
    expect(linkToken.parse('A'.repeat(43))).toBe('A'.repeat(43));
  });
});
