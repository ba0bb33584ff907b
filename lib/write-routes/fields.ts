import { z } from 'zod';
import { SLUG_PATTERN } from '../content/schema';

/**
 * Fields the write routes' schemas share. Form posts arrive as strings, so
 * numbers are coerced.
 *
 * `website` is a honeypot: hidden from people, filled in by bots. A filled
 * honeypot is answered like a success and nothing is done.
 */
export const honeypot = z.string().max(500).optional().describe('Leave empty. Hidden field that catches form-filling bots.');
export const required = (what: string) => ({ error: (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`) });
export const email = z
  .string(required('an email address'))
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email({ error: 'must be an email address' }));
export const slug = (what: string) => z.string(required('text')).regex(SLUG_PATTERN, `must be the slug of a ${what}`);
/** One line of text: no control characters, so nothing can break into a mail header. */
export const line = (max: number) =>
  z
    .string(required('text'))
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .regex(/^[^\p{Cc}]*$/u, 'must be a single line of text');
/**
 * One checkout attempt: the pricing page makes a random id per page view in
 * the browser, so a double submit of one form is one Stripe session and two
 * people are two.
 */
export const attempt = z
  .string()
  .regex(/^[A-Za-z0-9_-]{16,64}$/, 'must be 16 to 64 letters, digits, - or _')
  .optional()
  .describe(
    'A random id of this checkout attempt, the same for every submission of one form (16 to 64 letters, digits, - or _). Posts with the same attempt id, from the same address and with the same fields, get the same Checkout Session; without one, every post starts a new session.',
  );

/** A token from a newsletter link (32 random bytes, base64url). */
export const linkToken = z.string(required('text')).regex(/^[A-Za-z0-9_-]{16,128}$/, 'must be the token from the email link');
