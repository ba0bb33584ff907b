import { describe, expect, it } from 'vitest';
import { parseNewsletterCommand } from '@/lib/newsletter/cli';

describe('parseNewsletterCommand', () => {
  it('reads the four commands and their arguments', () => {
    expect(parseNewsletterCommand(['status'])).toEqual({ ok: true, command: { name: 'status' } });
    expect(parseNewsletterCommand(['preview', 'a-post'])).toEqual({ ok: true, command: { name: 'preview', slug: 'a-post' } });
    expect(parseNewsletterCommand(['retry', 'a-post'])).toEqual({ ok: true, command: { name: 'retry', slug: 'a-post' } });
    expect(parseNewsletterCommand(['test', 'a-post', 'me@example.com'])).toEqual({
      ok: true,
      command: { name: 'test', slug: 'a-post', address: 'me@example.com' },
    });
  });

  it('refuses a missing or unknown command, missing or extra arguments, and an address that is not one', () => {
    expect(parseNewsletterCommand([])).toEqual({ ok: false, error: 'no command given' });
    expect(parseNewsletterCommand(['send', 'a-post']).ok).toBe(false);
    expect(parseNewsletterCommand(['preview']).ok).toBe(false);
    expect(parseNewsletterCommand(['status', 'extra']).ok).toBe(false);
    expect(parseNewsletterCommand(['test', 'a-post', 'not-an-address'])).toEqual({ ok: false, error: '"not-an-address" is not an email address' });
  });
});
