import { describe, expect, it } from 'vitest';
import { hashToken } from '@/lib/services/tokens';
import { handlersFor } from '@/lib/write-routes/front-door';
import { settings } from '@/lib/settings';
import { subscribeRoute } from '@/lib/write-routes/subscribe';
import { testServices } from '../../support/services';
import { post, tokenOfLink, setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();
const { services, afterResponse, outboxMail } = testServices();
const { POST } = handlersFor(subscribeRoute, () => services, settings);
const pending = { status: 'pending', message: 'Check your inbox: a confirmation link is on its way, unless this address is already subscribed.' };

describe('POST /api/subscribe', () => {
  it('stores the address pending and mails a confirmation link to the page with the button', async () => {
    const response = await POST(post('/api/subscribe', { json: { email: 'Reader@Example.com', name: 'Ada' } }));
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual(pending);
    expect(await services.store.subscribers.list()).toEqual([expect.objectContaining({ email: 'reader@example.com', name: 'Ada', status: 'pending' })]);
    await afterResponse();
    const [mail] = await outboxMail();
    expect(mail?.to?.[0]?.address).toBe('reader@example.com');
    expect(tokenOfLink(mail?.text ?? '', 'http://localhost:3000/subscribe/confirm?token=')).toMatch(/^[A-Za-z0-9_-]{16,}$/);
  });

  it('answers a confirmed address exactly as a new one, and mails it nothing', async () => {
    const [first] = await outboxMail();
    const token = tokenOfLink(first?.text ?? '', 'http://localhost:3000/subscribe/confirm?token=');
    await services.store.subscribers.confirm(hashToken(token), Date.now(), 0);
    const response = await POST(post('/api/subscribe', { json: { email: 'reader@example.com' } }));
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual(pending);
    await afterResponse();
    expect(await outboxMail()).toHaveLength(1);
  });

  it('sends a form post to the check-your-inbox page', async () => {
    const response = await POST(post('/api/subscribe', { form: { email: 'form@example.com' } }));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/subscribe/check-your-inbox');
  });

  it('answers a filled honeypot as a subscription and stores nothing', async () => {
    const response = await POST(post('/api/subscribe', { json: { email: 'bot@example.com', website: 'http://spam.example' } }));
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual(pending);
    expect((await services.store.subscribers.list()).map((subscriber) => subscriber.email)).not.toContain('bot@example.com');
  });

  it('names a bad address and a name that breaks into a second line', async () => {
    const response = await POST(post('/api/subscribe', { json: { email: 'not-an-address', name: 'Ada\nBcc: x@example.com' } }));
    expect(response.status).toBe(400);
    expect((await response.json()).errors).toEqual([
      { path: 'email', message: 'must be an email address' },
      { path: 'name', message: 'must be a single line of text' },
    ]);
  });

  it('allows 5 requests per 10 minutes from one address', async () => {
    const answers = [];
    for (let index = 0; index < 6; index += 1) answers.push((await POST(post('/api/subscribe', { json: {} }, { client: '203.0.113.9' }))).status);
    expect(answers).toEqual([400, 400, 400, 400, 400, 429]);
  });
});
