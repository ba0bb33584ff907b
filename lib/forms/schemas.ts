import { z } from 'zod';
import { SLUG_PATTERN } from '../content/schema';
import type { WriteRoute } from '../limits/table';
import { MAX_HELD_SEATS_PER_CLIENT } from '../products';

/**
 * Request bodies of the write routes: one zod schema each, used to validate,
 * to type, and to describe the route in /openapi.json. Form posts arrive as
 * strings, so numbers are coerced.
 *
 * `website` is a honeypot: hidden from people, filled in by bots. A filled
 * honeypot is answered like a success and nothing is done.
 */
const honeypot = z.string().max(500).optional().describe('Leave empty. Hidden field that catches form-filling bots.');
const required = (what: string) => ({ error: (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`) });
const email = z.string(required('an email address')).trim().max(254, 'must be at most 254 characters').pipe(z.email({ error: 'must be an email address' }));
const slug = (what: string) => z.string(required('text')).regex(SLUG_PATTERN, `must be the slug of a ${what}`);
/** One line of text: no control characters, so nothing can break into a mail header. */
const line = (max: number) =>
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
const attempt = z
  .string()
  .regex(/^[A-Za-z0-9_-]{16,64}$/, 'must be 16 to 64 letters, digits, - or _')
  .optional()
  .describe(
    'A random id of this checkout attempt, the same for every submission of one form (16 to 64 letters, digits, - or _). Posts with the same attempt id, from the same address and with the same fields, get the same Checkout Session; without one, every post starts a new session.',
  );

/** A token from a newsletter link (32 random bytes, base64url). */
const linkToken = z.string(required('text')).regex(/^[A-Za-z0-9_-]{16,128}$/, 'must be the token from the email link');

export const formSchemas = {
  subscribe: z.strictObject({ email, name: line(100).optional(), website: honeypot }),
  support: z.strictObject({
    name: line(100),
    email,
    subject: line(150),
    message: z.string(required('text')).trim().min(1, 'must not be empty').max(5000, 'must be at most 5000 characters'),
    website: honeypot,
  }),
  checkout: z.strictObject({ product: slug('bundle or the book'), attempt, website: honeypot }),
  trainingCheckout: z.strictObject({
    product: slug('training'),
    session: slug('training session'),
    seats: z.coerce
      .number<string | number>(required('a number'))
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(MAX_HELD_SEATS_PER_CLIENT, `must be at most ${MAX_HELD_SEATS_PER_CLIENT}`)
      .default(1)
      .describe(`Seats to book, 1 to ${MAX_HELD_SEATS_PER_CLIENT}: one address may hold at most ${MAX_HELD_SEATS_PER_CLIENT} seats at once in checkouts not yet paid, across every session.`),
    attempt,
    website: honeypot,
  }),
  specialOfferCheckout: z.strictObject({ product: slug('special offer'), attempt, website: honeypot }),
  bookingCancel: z.strictObject({
    booking: z.string(required('text')).regex(/^[A-Za-z0-9_-]{8,64}$/, 'must be a booking id'),
    token: z.string(required('text')).regex(/^[A-Za-z0-9_-]{16,128}$/, 'must be the token from the booking email'),
  }),
  indexNotify: z.strictObject({
    urls: z.array(z.url()).min(1).max(10_000).optional().describe('URLs to submit; by default the ones changed since the last submission.'),
  }),
  subscribeConfirm: z.strictObject({ token: linkToken }),
  unsubscribe: z.strictObject({
    token: linkToken.optional().describe('The token from the email link: here, or as the `token` query parameter (as the List-Unsubscribe address carries it).'),
    'List-Unsubscribe': z.literal('One-Click', { error: 'must be One-Click' }).optional().describe('Sent by mail providers for an RFC 8058 one-click unsubscribe.'),
  }),
} as const satisfies Record<WriteRoute, z.ZodType>;

export type FormInput<R extends WriteRoute> = z.infer<(typeof formSchemas)[R]>;
