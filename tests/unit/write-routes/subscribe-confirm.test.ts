import { describe, expect, it } from 'vitest';
import { newToken } from '@/lib/services/tokens';
import { CONFIRMATION_RESEND } from '@/lib/subscribers/links';
import { handlersFor } from '@/lib/write-routes/front-door';
import { settings } from '@/lib/settings';
import { subscribeConfirmRoute } from '@/lib/write-routes/subscribe-confirm';
import { testServices } from '../../support/services';
import { post, setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();
const { services, afterResponse, outboxMail } = testServices();
const { POST } = handlersFor(subscribeConfirmRoute, () => services, settings);
const DAY = 24 * 60 * 60 * 1000;

/** A pending subscriber whose confirmation link was mailed `age` ms ago; its token. */
async function pendingSubscriber(email: string, age = 0): Promise<string> {
  const confirm = newToken();
  const mail = { to: { address: email }, subject: 'Confirm', text: 't', html: '<p>t</p>' };
  await services.store.subscribers.subscribe({
    email,
    confirmTokenHash: confirm.hash,
    unsubscribeTokenHash: newToken().hash,
    now: Date.now() - age,
    resend: CONFIRMATION_RESEND,
    mail,
  });
  return confirm.token;
}

const statusOf = async (email: string) => (await services.store.subscribers.list()).find((subscriber) => subscriber.email === email)?.status;

describe('POST /api/subscribe/confirm', () => {
  it('confirms the subscriber holding the token, once', async () => {
    const token = await pendingSubscriber('one@example.com');
    const response = await POST(post('/api/subscribe/confirm', { json: { token } }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'confirmed', message: 'Your subscription is confirmed.' });
    expect(await statusOf('one@example.com')).toBe('confirmed');
    // The fixture content has no content/newsletter-welcome.md: no welcome mail.
    await afterResponse();
    expect(await outboxMail()).toEqual([]);
    const again = await POST(post('/api/subscribe/confirm', { json: { token } }));
    expect(again.status).toBe(404);
  });

  it("sends the page's button to the confirmed page", async () => {
    const token = await pendingSubscriber('two@example.com');
    const response = await POST(post('/api/subscribe/confirm', { form: { token } }));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/subscribe/confirmed');
  });

  it('answers 410 for a link older than 7 days and changes nothing', async () => {
    const token = await pendingSubscriber('old@example.com', 8 * DAY);
    const response = await POST(post('/api/subscribe/confirm', { json: { token } }));
    expect(response.status).toBe(410);
    expect(await response.json()).toMatchObject({ detail: expect.stringContaining('links work for 7 days') });
    expect(await statusOf('old@example.com')).toBe('pending');
  });

  it('answers 404 for a token nobody holds and 400 for something that is no token', async () => {
    expect((await POST(post('/api/subscribe/confirm', { json: { token: newToken().token } }))).status).toBe(404);
    const invalid = await POST(post('/api/subscribe/confirm', { json: { token: 'x' } }));
    expect((await invalid.json()).errors).toEqual([{ path: 'token', message: 'must be the token from the email link' }]);
  });
});
