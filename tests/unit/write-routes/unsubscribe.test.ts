import { describe, expect, it } from 'vitest';
import { newToken } from '@/lib/services/tokens';
import { CONFIRMATION_RESEND } from '@/lib/subscribers/links';
import { handlersFor } from '@/lib/write-routes/front-door';
import { settings } from '@/lib/settings';
import { unsubscribeRoute } from '@/lib/write-routes/unsubscribe';
import { testServices } from '../../support/services';
import { post, setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();
const { services } = testServices();
const { POST, GET } = handlersFor(unsubscribeRoute, () => services, settings);

/** A subscriber mailed an unsubscribe link; its token. */
async function subscriber(email: string): Promise<string> {
  const unsubscribe = newToken();
  const mail = { to: { address: email }, subject: 'Confirm', text: 't', html: '<p>t</p>' };
  await services.store.subscribers.subscribe({
    email,
    confirmTokenHash: newToken().hash,
    unsubscribeTokenHash: unsubscribe.hash,
    now: Date.now(),
    resend: CONFIRMATION_RESEND,
    mail,
  });
  return unsubscribe.token;
}

const statusOf = async (email: string) => (await services.store.subscribers.list()).find((entry) => entry.email === email)?.status;
const done = { status: 'unsubscribed', message: 'You are unsubscribed: no more email will be sent to this address.' };

describe('POST /api/subscribe/unsubscribe', () => {
  it("answers a mail provider's one-click post (token in the query) 200, without a redirect", async () => {
    const token = await subscriber('one-click@example.com');
    const response = await POST(
      post(`/api/subscribe/unsubscribe?token=${token}`, { form: { 'List-Unsubscribe': 'One-Click' } }, { headers: { accept: '*/*' } }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(done);
    expect(await statusOf('one-click@example.com')).toBe('unsubscribed');
  });

  it('takes the one-click post as multipart too', async () => {
    const token = await subscriber('multipart@example.com');
    const body = new FormData();
    body.set('List-Unsubscribe', 'One-Click');
    const response = await POST(
      new Request(`http://localhost:3000/api/subscribe/unsubscribe?token=${token}`, { method: 'POST', headers: { 'x-real-ip': '203.0.113.20' }, body }),
    );
    expect(response.status).toBe(200);
    expect(await statusOf('multipart@example.com')).toBe('unsubscribed');
  });

  it("sends the page's button to the unsubscribed page", async () => {
    const token = await subscriber('button@example.com');
    const response = await POST(post('/api/subscribe/unsubscribe', { form: { token } }));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/subscribe/unsubscribed');
  });

  it('answers 404 for a token nobody holds and 400 without a token', async () => {
    expect((await POST(post('/api/subscribe/unsubscribe', { json: { token: newToken().token } }))).status).toBe(404);
    const missing = await POST(post('/api/subscribe/unsubscribe', {}));
    expect(missing.status).toBe(400);
    expect((await missing.json()).errors).toEqual([{ path: 'token', message: 'is required' }]);
  });

  it('refuses a token given both in the query and in the body', async () => {
    const token = await subscriber('twice@example.com');
    const response = await POST(post(`/api/subscribe/unsubscribe?token=${token}`, { json: { token } }));
    expect(response.status).toBe(400);
    expect(await statusOf('twice@example.com')).toBe('pending');
  });
});

describe('GET /api/subscribe/unsubscribe', () => {
  it('sends a browser to the page with the button and changes nothing', async () => {
    const token = await subscriber('opened@example.com');
    const response = GET(new Request(`http://localhost:3000/api/subscribe/unsubscribe?token=${token}`));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(`/subscribe/unsubscribe?token=${token}`);
    expect(await statusOf('opened@example.com')).toBe('pending');
  });
});
