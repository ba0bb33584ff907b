import { z } from 'zod';
import { cacheHeaders } from '../http/cache';
import { hashToken } from '../services/tokens';
import { linkToken } from './fields';
import { defineWriteRoute, problemStatus, type WriteContext, type WriteResult } from './definition';
import { writeRouteAddresses } from '../routes/manifest';

export const UNSUBSCRIBED_PAGE = '/subscribe/unsubscribed';

const schema = z.strictObject({
  token: linkToken.optional().describe('The token from the email link: here, or as the `token` query parameter (as the List-Unsubscribe address carries it).'),
  'List-Unsubscribe': z
    .literal('One-Click', { error: 'must be One-Click' })
    .optional()
    .describe('Sent by mail providers for an RFC 8058 one-click unsubscribe.'),
});

const responses = { '404': problemStatus('The token is not an unsubscribe token of this site.') };

/**
 * Unsubscribes the holder of the token (in the body, or in the query as the
 * List-Unsubscribe address carries it). A one-click post (RFC 8058) is
 * answered directly, never redirected; the page's button lands on a result page.
 */
async function unsubscribe(input: z.output<typeof schema>, { services }: WriteContext): Promise<WriteResult> {
  if (!input.token) return { ok: false, problem: 'invalid-input', detail: 'Check token.', errors: [{ path: 'token', message: 'is required' }] };
  const subscriber = await services.store.subscribers.unsubscribe(hashToken(input.token), Date.now());
  if (!subscriber) return { ok: false, problem: 'not-found', detail: 'This link does not work: it is not an unsubscribe link of this site.' };
  const body = { status: 'unsubscribed', message: 'You are unsubscribed: no more email will be sent to this address.' };
  return input['List-Unsubscribe'] ? { ok: true, status: 200, body } : { ok: true, status: 200, body, redirect: UNSUBSCRIBED_PAGE };
}

/**
 * The List-Unsubscribe address opened in a browser (a mail program without
 * one-click, or a link scanner): sent to the page with the button, nothing changed.
 */
function openedInBrowser(request: Request): Response {
  const token = new URL(request.url).searchParams.get('token') ?? '';
  return new Response(null, { status: 303, headers: { ...cacheHeaders('write'), Location: `/subscribe/unsubscribe?token=${encodeURIComponent(token)}` } });
}

/** Mail providers send the one-click unsubscribes of many readers from a few shared addresses, hence the generous limit. */
export const unsubscribeRoute = defineWriteRoute({
  route: writeRouteAddresses.unsubscribe,
  handle: {
    schema,
    action: unsubscribe,
    queryFields: [
      { name: 'token', description: 'The token from the email link, as the List-Unsubscribe address carries it.', pattern: '^[A-Za-z0-9_-]{16,128}$' },
    ],
    multipart: true,
    optionalBody: true,
    get: openedInBrowser,
  },
  docs: {
    summary:
      'Unsubscribe with the token from a newsletter email: the button on /subscribe/unsubscribe, or an RFC 8058 one-click POST (body `List-Unsubscribe=One-Click`, token in the query) to the List-Unsubscribe address, answered 200 without a redirect. A GET is sent (303) to the page with the button and changes nothing.',
    responses,
  },
});
