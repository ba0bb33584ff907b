import { describe, expect, it } from 'vitest';
import { handlersFor } from '@/lib/write-routes/front-door';
import { settings } from '@/lib/settings';
import { supportRoute } from '@/lib/write-routes/support';
import { testServices } from '../../support/services';
import { post, setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings({ SUPPORT_EMAIL: 'help@example.com' });
const { services, afterResponse, outboxMail, storedData } = testServices();
const { POST } = handlersFor(supportRoute, () => services, settings);
const message = { name: 'Ada', email: 'Ada@Example.com', subject: 'A question', message: 'How do feeds work?' };

describe('POST /api/support', () => {
  it('stores the message, mails it to the owner (Reply-To the sender) and a receipt to the sender', async () => {
    const response = await POST(post('/api/support', { json: message }));
    expect(response.status).toBe(202);
    const body = await response.json();
    expect(body).toEqual({
      status: 'received',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      message: 'Thank you: your message is stored and a receipt is on its way.',
    });
    const stored = storedData();
    expect(await stored.supportMessages()).toEqual([
      expect.objectContaining({ id: body.id, name: 'Ada', email: 'ada@example.com', subject: 'A question', message: 'How do feeds work?' }),
    ]);
    await afterResponse();
    const mails = await outboxMail();
    const owner = mails.find((mail) => mail.to?.[0]?.address === 'help@example.com');
    expect(owner?.replyTo?.[0]?.address).toBe('ada@example.com');
    expect(mails.map((mail) => mail.to?.[0]?.address).sort()).toEqual(['ada@example.com', 'help@example.com']);
    await stored.close();
  });

  it('sends a form post to the sent page', async () => {
    const response = await POST(post('/api/support', { form: message }));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/support/sent');
  });

  it('answers a filled honeypot as a received message and stores nothing', async () => {
    const stored = storedData();
    const before = (await stored.supportMessages()).length;
    const response = await POST(post('/api/support', { json: { ...message, website: 'http://spam.example' } }));
    expect(response.status).toBe(202);
    expect((await response.json()).status).toBe('received');
    expect(await stored.supportMessages()).toHaveLength(before);
    await stored.close();
  });

  it('names every missing field, and a subject that breaks into a second line', async () => {
    const response = await POST(post('/api/support', { json: { subject: 'Hi\r\nBcc: x@example.com' } }));
    expect(response.status).toBe(400);
    expect((await response.json()).errors).toEqual([
      { path: 'name', message: 'is required' },
      { path: 'email', message: 'is required' },
      { path: 'subject', message: 'must be a single line of text' },
      { path: 'message', message: 'is required' },
    ]);
  });
});
