import { unsubscribe, UNSUBSCRIBED_PAGE } from '@/lib/forms/subscribe';
import { cacheHeaders } from '@/lib/http/cache';
import { writeRoute } from '@/lib/http/write-route';

export const { POST, PUT, PATCH, DELETE } = writeRoute('unsubscribe', {
  action: unsubscribe,
  accepted: () => ({ ok: true, status: 200, body: { status: 'unsubscribed' }, redirect: UNSUBSCRIBED_PAGE }),
  queryFields: ['token'],
  multipart: true,
  optionalBody: true,
});

/**
 * The List-Unsubscribe address opened in a browser (a mail program without
 * one-click, or a link scanner): sent to the page with the button, nothing changed.
 */
export function GET(request: Request): Response {
  const token = new URL(request.url).searchParams.get('token') ?? '';
  return new Response(null, { status: 303, headers: { ...cacheHeaders('write'), Location: `/subscribe/unsubscribe?token=${encodeURIComponent(token)}` } });
}
