import { describe, expect, it } from 'vitest';
import { newToken } from '@/lib/services/tokens';
import { CONFIRMATION_DAYS, CONFIRMATION_RESEND, confirmationCutoff, confirmationState, confirmPageUrl, unsubscribeLinks } from '@/lib/subscribers/links';
import { testServices } from '../../support/services';
import { setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings({ SITE_URL: 'https://blog.example' });
const { store } = testServices().services;

const DAY = 24 * 60 * 60 * 1000;

async function pending(email: string, age: number): Promise<string> {
  const confirm = newToken();
  await store.subscribers.subscribe({
    email,
    confirmTokenHash: confirm.hash,
    unsubscribeTokenHash: newToken().hash,
    now: Date.now() - age,
    resend: CONFIRMATION_RESEND,
    mail: { to: { address: email }, subject: 's', text: 't', html: 'h' },
  });
  return confirm.token;
}

describe('newsletter links', () => {
  it('send a confirmation to the page with the button, never straight to the API', () => {
    expect(confirmPageUrl('abc_-123')).toBe('https://blog.example/subscribe/confirm?token=abc_-123');
  });

  it('give a page to open and an RFC 8058 one-click address for each unsubscribe token', () => {
    expect(unsubscribeLinks('tok')).toEqual({
      page: 'https://blog.example/subscribe/unsubscribe?token=tok',
      oneClick: 'https://blog.example/api/subscribe/unsubscribe?token=tok',
    });
  });

  it(`keep a confirmation link working for ${CONFIRMATION_DAYS} days`, () => {
    expect(confirmationCutoff(10 * DAY)).toBe(3 * DAY);
  });

  it('tell the confirmation page what a token is without confirming it', async () => {
    const fresh = await pending('fresh@example.com', DAY);
    const old = await pending('old@example.com', 8 * DAY);
    expect(await confirmationState(store.subscribers, fresh)).toBe('pending');
    expect(await confirmationState(store.subscribers, old)).toBe('expired');
    expect(await confirmationState(store.subscribers, newToken().token)).toBeUndefined();
    expect((await store.subscribers.list()).map((subscriber) => subscriber.status)).toEqual(['pending', 'pending']);
  });
});
