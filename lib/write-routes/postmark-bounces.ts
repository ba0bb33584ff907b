import { z } from 'zod';
import { recordReport } from '../newsletter/bounces/record';
import { writeRouteAddresses } from '../routes/manifest';
import type { BounceKind } from '../services/store/types';
import { sameSecret } from '../services/tokens';
import { defineWriteRoute, problemStatus, type WriteContext, type WriteResult, type WriteSettings } from './definition';

/**
 * Postmark's bounce types lectern acts on (https://postmarkapp.com/developer/api/bounce-api):
 * the address does not exist (hard), or the message could not be delivered for now (soft). The
 * others (auto-responders, subscribe and unsubscribe requests, address changes, challenges…) are
 * answered 200 and change nothing.
 */
const BOUNCE_KINDS: Record<string, BounceKind> = {
  HardBounce: 'hard',
  BadEmailAddress: 'hard',
  SoftBounce: 'soft',
  Transient: 'soft',
  DnsError: 'soft',
  Blocked: 'soft',
  SpamComplaint: 'complaint',
};

/**
 * `Authorization: Basic` with POSTMARK_WEBHOOK_AUTH (the `user:password` put in the webhook's URL in
 * Postmark), compared in constant time before the body is read. Unset: the webhook is not there (404).
 */
function authorizePostmark(request: Request, settings: WriteSettings): WriteResult | undefined {
  const expected = settings.bounces.postmarkAuth;
  if (!expected) return { ok: false, problem: 'not-found', detail: "Postmark's webhook is not set up on this site (POSTMARK_WEBHOOK_AUTH)." };
  const encoded = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
  if (!sameSecret(Buffer.from(encoded, 'base64').toString('utf8'), expected))
    return {
      ok: false,
      problem: 'unauthorized',
      detail: "Send the webhook's Basic credentials (POSTMARK_WEBHOOK_AUTH).",
      headers: { 'WWW-Authenticate': 'Basic realm="postmark", charset="UTF-8"' },
    };
  return undefined;
}

/** The fields of Postmark's bounce and spam-complaint webhooks lectern reads; the others are let through unread. */
const schema = z.looseObject({
  RecordType: z.string().max(40).describe('`Bounce` or `SpamComplaint`.'),
  ID: z.union([z.number().int(), z.string().max(100)]).describe("Postmark's id of the bounce: the same one posted twice counts once."),
  Type: z.string().max(60).describe('The bounce type: HardBounce, SoftBounce, Transient, SpamComplaint…'),
  Description: z.string().max(2000).optional(),
  Details: z.string().max(2000).optional(),
  Metadata: z
    .record(z.string(), z.string().max(200))
    .optional()
    .describe('The `bounce-token` lectern put in each message (header X-PM-Metadata-bounce-token).'),
});

const responses = {
  '401': problemStatus('Missing or wrong Basic credentials.'),
  '404': problemStatus("Postmark's webhook is not set up on this site (POSTMARK_WEBHOOK_AUTH unset)."),
};

/**
 * Records a bounce or complaint Postmark reports, against the message its bounce token names, as
 * the listener and the IMAP poller do (lib/newsletter/bounces/record.ts). Answered 200 whenever it
 * was read, acted on or not (a report naming no message of ours is logged): Postmark posts again
 * only what was not answered 200, and posting it again would change nothing.
 */
async function postmarkBounce(input: z.output<typeof schema>, { services, settings }: WriteContext): Promise<WriteResult> {
  const kind = input.RecordType === 'SpamComplaint' ? 'complaint' : input.RecordType === 'Bounce' ? BOUNCE_KINDS[input.Type] : undefined;
  if (!kind) return { ok: true, status: 200, body: { recorded: false, reason: `not a bounce lectern acts on (${input.RecordType} ${input.Type})` } };
  const token = input.Metadata?.['bounce-token'];
  const handled = await recordReport(
    {
      kind,
      token,
      // Postmark's ids go past 2^53 (JSON numbers lose the last digits), so the token is part of the report's id too.
      reportId: `postmark:${input.RecordType}:${input.ID}:${token ?? ''}`,
      detail: `Postmark ${input.Type}: ${input.Details || input.Description || ''}`.trim().slice(0, 300),
    },
    { store: services.store, soft: settings.bounces.soft, clock: Date.now, log: console },
  );
  return handled.kept
    ? { ok: true, status: 200, body: { recorded: false, reason: handled.reason } }
    : { ok: true, status: 200, body: { recorded: true, action: handled.action } };
}

/** Postmark posts from a few addresses, a burst of bounces after each newsletter: a generous limit. */
export const postmarkBouncesRoute = defineWriteRoute({
  route: writeRouteAddresses.postmarkBounces,
  handle: { schema, action: postmarkBounce, authorize: { check: authorizePostmark, security: { basic: [] } } },
  docs: {
    summary:
      "Postmark's bounce and spam-complaint webhook (Basic credentials POSTMARK_WEBHOOK_AUTH): a hard bounce suspends the address from the newsletter, soft bounces suspend it after SOFT_BOUNCE_LIMIT in SOFT_BOUNCE_WINDOW_DAYS, a complaint unsubscribes it. Answered 200 `{recorded, action?, reason?}` whenever it was read.",
    responses,
    jsonOnly: true,
  },
});
