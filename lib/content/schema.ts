import { z } from 'zod';

/** Slugs are file names: lowercase words joined by single hyphens. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const slugSchema = z.string().regex(SLUG_PATTERN, 'must be lowercase letters and digits joined by single hyphens');

/** `YYYY-MM-DD` or an ISO 8601 date-time with an offset (`Z` or `±hh:mm`). */
export const contentDateSchema = z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
  error: 'must be YYYY-MM-DD or an ISO 8601 date-time with offset',
});

/** One formatter per time zone: making one costs far more than using it, and every date-only post date asks three times. */
const wallClocks = new Map<string, Intl.DateTimeFormat>();

function wallClock(timeZone: string): Intl.DateTimeFormat {
  let format = wallClocks.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    wallClocks.set(timeZone, format);
  }
  return format;
}

/** The offset of a time zone from UTC at an instant, in milliseconds (east positive). */
export function zoneOffset(millis: number, timeZone: string): number {
  const parts = wallClock(timeZone).formatToParts(millis);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((entry) => entry.type === type)?.value);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return wall - (millis - (((millis % 1000) + 1000) % 1000));
}

/**
 * A date-only value means midnight at the start of that day in the site's time zone
 * (DECISIONS.md); a date-time carries its own offset. The two offsets the zone may have around
 * that midnight are tried, and the earliest instant whose wall clock is on that day wins: a
 * day whose midnight a daylight-saving change skips starts at 01:00.
 */
export function dateToMillis(value: string, timeZone = 'UTC'): number {
  if (value.length !== 10) return Date.parse(value);
  const wallMidnight = Date.parse(`${value}T00:00:00Z`);
  const first = wallMidnight - zoneOffset(wallMidnight, timeZone);
  const second = wallMidnight - zoneOffset(first, timeZone);
  const onTheDay = [first, second].filter((instant) => instant + zoneOffset(instant, timeZone) >= wallMidnight);
  return Math.min(...onTheDay);
}

/** An IANA time zone name the runtime knows (Europe/Berlin, America/New_York, UTC). */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const postFrontmatterSchema = z
  .strictObject({
    title: z.string().trim().min(1, 'must not be empty'),
    description: z.string().trim().min(1, 'must not be empty').max(300, 'must be at most 300 characters'),
    date: contentDateSchema,
    updated: contentDateSchema.optional(),
    tags: z.array(z.string().trim().min(1, 'must not be empty').max(40, 'must be at most 40 characters')).default([]),
    draft: z.boolean().default(false),
    /** The post's author where it is not the site's. */
    author: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
    /** False keeps the post out of the newsletter: it is recorded as published and mailed to nobody. */
    newsletter: z.boolean().default(true),
  })
  .refine((post) => post.updated === undefined || dateToMillis(post.updated) >= dateToMillis(post.date), {
    path: ['updated'],
    message: 'must not be before date',
  });
export type PostFrontmatter = z.infer<typeof postFrontmatterSchema>;

/** content/newsletter-welcome.md: the welcome mail a reader gets once their subscription is confirmed. */
export const welcomeFrontmatterSchema = z.strictObject({
  subject: z.string().trim().min(1, 'must not be empty').max(150, 'must be at most 150 characters'),
});

export const homeFrontmatterSchema = z.strictObject({
  title: z.string().trim().min(1),
  description: z.string().trim().min(1).max(300),
});

export const siteSchema = z.strictObject({
  name: z.string().trim().min(1),
  summary: z.string().trim().min(1).max(200),
  author: z.strictObject({
    name: z.string().trim().min(1),
    url: z.url().optional(),
    /** Where replies to the newsletter go (its Reply-To); unset: no Reply-To. */
    email: z.email().optional(),
  }),
  /** The sender's postal address, shown in every newsletter mail's footer (CAN-SPAM asks for one in commercial mail); line breaks kept. */
  postalAddress: z.string().trim().min(1).max(300, 'must be at most 300 characters').optional(),
  language: z
    .string()
    .regex(/^[a-z]{2}(?:-[A-Z]{2})?$/)
    .default('en'),
  /** Where a date without a time starts: midnight in this IANA time zone. */
  timezone: z.string().trim().refine(isTimeZone, 'must be an IANA time zone name such as Europe/Berlin or UTC').default('UTC'),
  /** When an agent should cite the material (llms.txt guidance paragraph). The reuse rule is not content: lib/agents/terms.ts. */
  citation: z.string().trim().min(1),
  /**
   * The author's profiles elsewhere (a Mastodon account, a code forge): every page links each with
   * `rel="me"` (how Mastodon and IndieWeb verify a link), and the site's fediverse account shows them
   * as its profile fields. Mastodon shows four.
   */
  links: z
    .array(
      z.strictObject({
        name: z.string().trim().min(1, 'must not be empty').max(40, 'must be at most 40 characters'),
        url: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }).transform((url) => new URL(url).href),
      }),
    )
    .max(4, 'must list at most 4 profiles (Mastodon shows four)')
    .optional(),
});
export type Site = z.infer<typeof siteSchema>;

export const appFrontmatterSchema = z.strictObject({
  name: z.string().trim().min(1),
  description: z.string().trim().min(1).max(300),
  version: z.string().regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, 'must be a semantic version such as 1.4.0'),
  /** Absolute URL of the current build; `/api/apps/{slug}/download` redirects here. */
  download: z.url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' }),
  platforms: z.array(z.string().trim().min(1)).default([]),
});
export type AppFrontmatter = z.infer<typeof appFrontmatterSchema>;

const dateTime = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with offset' });

/** One meeting of a session: a start and an end, the end after the start. */
const meetingSchema = z
  .strictObject({ start: dateTime, end: dateTime })
  .refine((meeting) => Date.parse(meeting.end) > Date.parse(meeting.start), { path: ['end'], message: 'must be after start' });

/** A session: its meetings in order (the workshop's two half-days), each starting after the one before ends, and its seats. */
const trainingSessionSchema = z
  .strictObject({ id: slugSchema, meetings: z.array(meetingSchema).min(1), seats: z.number().int().positive() })
  .refine((session) => session.meetings.every((meeting, index) => index === 0 || Date.parse(meeting.start) >= Date.parse(session.meetings[index - 1]!.end)), {
    path: ['meetings'],
    message: 'must be in order, each starting after the one before ends',
  });

const productBase = {
  title: z.string().trim().min(1),
  description: z.string().trim().min(1).max(300),
  /** Price in the currency's minor unit (cents for EUR/USD). */
  price: z.number().int().nonnegative(),
  currency: z.string().regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as EUR'),
  /** Sort order on the pricing page and in /pricing.md; lower first. */
  order: z.number().int().default(100),
};

/** The folder of a content folder that holds what buyers download: never served by a public URL. */
export const DELIVERABLES_FOLDER = 'deliverables';

/** A file under the deliverables folder, by its path there: forward slashes, no `..`, no leading `/`. */
const deliverablePathSchema = z
  .string()
  .regex(/^(?!.*(?:^|\/)\.\.?(?:\/|$))[A-Za-z0-9._-][A-Za-z0-9._ /-]*$/, `must be a path inside ${DELIVERABLES_FOLDER}/, such as book/book.pdf`)
  .refine((value) => !value.endsWith('/') && !value.includes('//'), 'must name a file, not a folder');

/** The files a buyer of the product downloads, each under the content folder's deliverables/. */
const files = z.array(deliverablePathSchema).default([]);

export const productFrontmatterSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('training'),
    ...productBase,
    sessions: z.array(trainingSessionSchema).min(1),
    /**
     * How to join (a video link, or an address): given only to people who booked, in the booking
     * mail and the reminder; never on a public page, feed or file.
     */
    joining: z.string().trim().min(1).optional(),
  }),
  z.strictObject({ kind: z.literal('bundle'), ...productBase, files }),
  z.strictObject({ kind: z.literal('book'), ...productBase, files }),
  z
    .strictObject({
      kind: z.literal('offer'),
      ...productBase,
      files,
      /** The products (books and bundles, by slug) whose files an offer's buyer gets too. */
      includes: z.array(slugSchema).default([]),
      starts: z.iso.datetime({ offset: true }),
      ends: z.iso.datetime({ offset: true }),
    })
    .refine((offer) => Date.parse(offer.ends) > Date.parse(offer.starts), { path: ['ends'], message: 'must be after starts' }),
]);
export type ProductFrontmatter = z.infer<typeof productFrontmatterSchema>;
