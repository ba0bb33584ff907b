import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import { freshAddress, postForm, postJson, request, unfinishedUpload } from '../support/client';
import { sqliteStoredData } from '../support/stored';
import { startRecorder, stripeForm, type Recorded, type Reply } from '../support/recorder';
import { startSmtp } from '../support/smtp';
import { freePort, startSite, type RunningSite } from '../support/site';

const WEBHOOK_SECRET = 'whsec_test_secret';
const stripe = new Stripe('sk_test_local');

let stripeApi: Awaited<ReturnType<typeof startRecorder>>;
let indexNow: Awaited<ReturnType<typeof startRecorder>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let running: RunningSite;

/** While true, the fake Stripe drops every refund request unanswered (Stripe unreachable). */
let refundsDown = false;
/** While true, the fake Stripe drops every checkout session request unanswered. */
let sessionsDown = false;

/**
 * What Stripe answers, with its idempotency: a key seen before with the same
 * parameters gets the first answer again, with other parameters a 400
 * idempotency_error. A dropped request is not kept (it never reached Stripe).
 */
function fakeStripe(): (req: Recorded, index: number) => Reply {
  const seen = new Map<string, { body: string; reply: Reply }>();
  return (req, index) => {
    const key = typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : undefined;
    const earlier = key ? seen.get(key) : undefined;
    if (earlier) {
      return earlier.body === req.body
        ? earlier.reply
        : {
            status: 400,
            body: {
              error: {
                type: 'idempotency_error',
                message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.',
              },
            },
          };
    }
    let reply: Reply = { status: 404, body: { error: { type: 'invalid_request_error', message: 'unknown' } } };
    if (req.path === '/v1/checkout/sessions' && sessionsDown) return 'drop';
    if (req.path === '/v1/checkout/sessions')
      reply = { status: 200, body: { id: `cs_test_${index}`, object: 'checkout.session', url: `https://checkout.stripe.com/c/pay/cs_test_${index}` } };
    if (req.path === '/v1/refunds') reply = refundsDown ? 'drop' : { status: 200, body: { id: `re_test_${index}`, object: 'refund', status: 'succeeded' } };
    if (key && reply !== 'drop') seen.set(key, { body: req.body, reply });
    return reply;
  };
}

beforeAll(async () => {
  stripeApi = await startRecorder(fakeStripe());
  indexNow = await startRecorder(() => ({ status: 202, body: '' }));
  smtp = await startSmtp();
  running = await startSite({
    contentDir: inject('contentDir'),
    distDir: inject('distDir'),
    siteUrl: inject('siteUrl'),
    port: await freePort(),
    extraEnv: {
      STRIPE_SECRET_KEY: 'sk_test_local',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: stripeApi.url,
      SMTP_URL: smtp.url,
      MAIL_POLL_MS: '200',
      INDEX_NOTIFY_TOKEN: 'index-notify-secret-token',
      INDEXNOW_KEY: 'abcdef0123456789',
      INDEXNOW_ENDPOINT: `${indexNow.url}/indexnow`,
    },
  });
});
afterAll(async () => {
  await running?.stop();
  await Promise.all([stripeApi?.close(), indexNow?.close(), smtp?.close()]);
});

function signedEvent(event: object) {
  const payload = JSON.stringify(event);
  return request(running.baseUrl, '/api/payments/webhook', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Stripe-Signature': stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) },
    body: payload,
  });
}

function completed(
  id: string,
  session: { id: string; metadata: Record<string, string>; amount: number; currency: string; email: string; paymentIntent?: string },
) {
  return {
    id,
    object: 'event',
    type: 'checkout.session.completed',
    data: {
      object: {
        id: session.id,
        object: 'checkout.session',
        payment_status: 'paid',
        amount_total: session.amount,
        currency: session.currency,
        customer_details: { email: session.email, name: 'Buyer' },
        payment_intent: session.paymentIntent ?? 'pi_test_1',
        metadata: session.metadata,
      },
    },
  };
}

const sessionRequests = () => stripeApi.requests.filter((req) => req.path === '/v1/checkout/sessions');
const refundRequests = (paymentIntent: string) =>
  stripeApi.requests.filter((req) => req.path === '/v1/refunds' && stripeForm(req.body).payment_intent === paymentIntent);
/** What the pricing page's forms send as `attempt`: 16 random bytes, hex. */
const attemptId = () => randomBytes(16).toString('hex');
const openStore = () => openSqliteStore(path.join(running.dataDir, 'lectern.db'));

/** Pays for a training seat through a signed webhook event and returns the booking id and token from the receipt mail. */
async function bookedSeat(eventId: string, session: string, paymentIntent: string): Promise<{ booking: string; token: string }> {
  const buyer = `${eventId}@example.com`;
  const event = completed(eventId, {
    id: `cs_${eventId}`,
    metadata: { product: 'fixture-training', kind: 'training', session, seats: '1' },
    amount: 49000,
    currency: 'eur',
    email: buyer,
    paymentIntent,
  });
  expect((await signedEvent(event)).json()).toMatchObject({ outcome: 'recorded' });
  const receipt = await smtp.waitFor((mail) => mail.envelopeTo.includes(buyer));
  const url = new URL(/https?:\/\/\S+\/booking\/cancel\?booking=[\w-]+&token=[\w-]+/.exec(receipt.text ?? '')![0]);
  return { booking: url.searchParams.get('booking')!, token: url.searchParams.get('token')! };
}

const lastSessionRequest = () => stripeForm(stripeApi.requests.filter((req) => req.path === '/v1/checkout/sessions').at(-1)?.body ?? '');

describe('checkout', () => {
  it('creates a Stripe Checkout Session with the price from the product source, never the request', async () => {
    const response = await postJson(running.baseUrl, '/api/payments/checkout', { product: 'fixture-bundle', price: 1 } as object, { from: freshAddress() });
    expect(response.status).toBe(400);
    const ok = await postJson(running.baseUrl, '/api/payments/checkout', { product: 'fixture-bundle' }, { from: freshAddress() });
    expect(ok.status).toBe(200);
    expect(ok.json()).toMatchObject({ url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\//) });
    const sent = stripeApi.requests.at(-1)!;
    expect(sent.headers.authorization).toBe('Bearer sk_test_local');
    expect(sent.headers['idempotency-key']).toMatch(/^checkout:/);
    const form = stripeForm(sent.body);
    expect(form).toMatchObject({
      mode: 'payment',
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][unit_amount]': '1500',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][product_data][name]': 'Fixture Bundle',
      'metadata[product]': 'fixture-bundle',
      'metadata[kind]': 'bundle',
    });
    expect(form.success_url).toBe(`${inject('siteUrl')}/checkout/success?session_id={CHECKOUT_SESSION_ID}`);
    expect(form.cancel_url?.startsWith(`${inject('siteUrl')}/checkout/cancelled`)).toBe(true);
  });

  it('asks Stripe to make an invoice of every one-time payment', async () => {
    expect((await postJson(running.baseUrl, '/api/payments/checkout', { product: 'fixture-book' }, { from: freshAddress() })).status).toBe(200);
    expect(lastSessionRequest()['invoice_creation[enabled]']).toBe('true');
  });

  it('answers 503 payments-unavailable with Retry-After when Stripe cannot be reached, not "not configured", and holds no seat', async () => {
    sessionsDown = true;
    try {
      const book = await postJson(running.baseUrl, '/api/payments/checkout', { product: 'fixture-book' }, { from: freshAddress() });
      expect(book.status).toBe(503);
      expect(book.headers['retry-after']).toBe('60');
      expect(book.json()).toMatchObject({ type: expect.stringMatching(/#problem-payments-unavailable$/), title: 'Payments unavailable; try again shortly' });
      const seats = await postJson(
        running.baseUrl,
        '/api/payments/training/checkout',
        { product: 'fixture-training', session: 'autumn', seats: 1 },
        { from: freshAddress() },
      );
      expect(seats.status).toBe(503);
      expect(seats.json()).toMatchObject({ title: 'Payments unavailable; try again shortly' });
    } finally {
      sessionsDown = false;
    }
    const store = openStore();
    expect(await store.bookings.seatsTaken('fixture-training', 'autumn', Date.now())).toBe(0);
    await store.close();
  });

  it('answers a form post with 303 to the Stripe page', async () => {
    const response = await postForm(
      running.baseUrl,
      '/api/payments/checkout',
      { product: 'fixture-book' },
      { from: freshAddress(), headers: { Origin: new URL(inject('siteUrl')).origin } },
    );
    expect(response.status).toBe(303);
    expect(response.headers.location).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_\d+$/);
  });

  it('refuses a product of another kind or an unknown one', async () => {
    for (const product of ['fixture-training', 'no-such-product']) {
      const response = await postJson(running.baseUrl, '/api/payments/checkout', { product }, { from: freshAddress() });
      expect(response.status).toBe(400);
      expect((response.json() as { errors: { path: string }[] }).errors[0]?.path).toBe('product');
    }
  });

  it('sells a special offer inside its window and answers 410 with the window outside it', async () => {
    const now = await postJson(running.baseUrl, '/api/payments/special-offer/checkout', { product: 'fixture-offer' }, { from: freshAddress() });
    expect(now.status).toBe(200);
    expect(lastSessionRequest()['line_items[0][price_data][unit_amount]']).toBe('3900');
    const over = await postJson(running.baseUrl, '/api/payments/special-offer/checkout', { product: 'fixture-old-offer' }, { from: freshAddress() });
    expect(over.status).toBe(410);
    expect((over.json() as { detail: string }).detail).toContain('2020-01-01T00:00:00+00:00 until 2020-02-01T00:00:00+00:00');
  });
});

describe('the pricing page', () => {
  it('shows buy buttons when the running server has Stripe keys though the build had none, none without them, and stays a cached read', async () => {
    const html = { headers: { Accept: 'text/html' } };
    // The contract build is made without Stripe keys (global-setup.ts); this file's server runs with them.
    const selling = await request(running.baseUrl, '/pricing', html);
    expect(selling.status).toBe(200);
    expect(selling.body).toContain('action="/api/payments/checkout"');
    expect(selling.body).toContain('action="/api/payments/training/checkout"');
    expect(selling.body).not.toContain('payments are not configured');
    // The shared server runs without them: no buy button, and the page says why.
    const closed = await request(inject('baseUrl'), '/pricing', html);
    expect(closed.status).toBe(200);
    expect(closed.body).toContain('payments are not configured');
    expect(closed.body).not.toContain('action="/api/payments/');
    // Rendered from the running settings, and still a read: shareable, one strong ETag, a 304 to it.
    expect(selling.headers['cache-control']).toMatch(/^public, /);
    expect(selling.headers.etag).toMatch(/^"[^"]+"$/);
    const again = await request(running.baseUrl, '/pricing', html);
    expect(again.headers.etag).toBe(selling.headers.etag);
    expect(again.body).toBe(selling.body);
    const revalidated = await request(running.baseUrl, '/pricing', { headers: { Accept: 'text/html', 'If-None-Match': selling.headers.etag! } });
    expect(revalidated.status).toBe(304);
  });
});

describe('webhook', () => {
  it('refuses a bad signature and records nothing', async () => {
    const payload = JSON.stringify(
      completed('evt_forged', { id: 'cs_forged', metadata: { product: 'fixture-book' }, amount: 1, currency: 'eur', email: 'x@example.com' }),
    );
    const response = await request(running.baseUrl, '/api/payments/webhook', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_wrong' }) },
      body: payload,
    });
    expect(response.status).toBe(400);
    const stored = sqliteStoredData(path.join(running.dataDir, 'lectern.db'));
    expect((await stored.orders()).map((order) => order.id)).not.toContain('cs_forged');
    await stored.close();
  });

  it('records a paid order once, mails a receipt, and a replayed event changes nothing', async () => {
    const event = completed('evt_book_1', {
      id: 'cs_book_1',
      metadata: { product: 'fixture-book', kind: 'book' },
      amount: 2900,
      currency: 'eur',
      email: 'reader@example.com',
    });
    const first = await signedEvent(event);
    expect(first.status).toBe(200);
    expect(first.json()).toMatchObject({ outcome: 'recorded' });
    const replay = await signedEvent(event);
    expect(replay.json()).toMatchObject({ outcome: 'duplicate' });
    const receipt = await smtp.waitFor((mail) => mail.subject === 'Your receipt from Fixture & Co: Fixture Book');
    expect(receipt.text).toContain('€29.00');
    const stored = sqliteStoredData(path.join(running.dataDir, 'lectern.db'));
    expect((await stored.orders()).filter((order) => order.id === 'cs_book_1')).toEqual([
      expect.objectContaining({ product: 'fixture-book', amount: 2900, currency: 'EUR', email: 'reader@example.com' }),
    ]);
    await stored.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.messages.filter((mail) => mail.subject === 'Your receipt from Fixture & Co: Fixture Book')).toHaveLength(1);
  });

  it('names the paid order on the success page, and says so with a 404 for a checkout it has no paid order of', async () => {
    const event = completed('evt_success_1', {
      id: 'cs_success_1',
      metadata: { product: 'fixture-book', kind: 'book' },
      amount: 2900,
      currency: 'eur',
      email: 'success-reader@example.com',
      paymentIntent: 'pi_success_1',
    });
    expect((await signedEvent(event)).json()).toMatchObject({ outcome: 'recorded' });
    const html = { headers: { Accept: 'text/html' } };
    const paid = await request(running.baseUrl, '/checkout/success?session_id=cs_success_1', html);
    expect(paid.status).toBe(200);
    expect(paid.headers['cache-control']).toMatch(/no-store/);
    expect(paid.body).toContain('Your payment went through');
    expect(paid.body).toContain('Fixture Book');
    expect(paid.body).toContain('€29.00');
    expect(paid.body).toContain('s•••@example.com');
    expect(paid.body).not.toContain('success-reader@example.com');
    for (const made of ['/checkout/success?session_id=cs_test_madeup123', '/checkout/success?session_id=%3Cscript%3E', '/checkout/success']) {
      const answer = await request(running.baseUrl, made, html);
      expect(answer.status, made).toBe(404);
      expect(answer.body, made).toContain('We cannot find a paid order for this link.');
      expect(answer.body, made).not.toContain('Your payment went through');
    }
  });
});

describe('webhook body size', () => {
  const signature = () => stripe.webhooks.generateTestHeaderString({ payload: '{}', secret: WEBHOOK_SECRET });

  it('refuses an event past 1 MiB with 413, by its Content-Length or as the chunks arrive, without waiting for the rest', async () => {
    const declared = await unfinishedUpload(running.baseUrl, '/api/payments/webhook', {
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature(), 'Content-Length': String(2 * 1024 * 1024) },
      firstPart: Buffer.alloc(64 * 1024, ' '),
    });
    expect(declared.status).toBe(413);
    expect(declared.json()).toMatchObject({ status: 413, detail: 'The event is larger than 1 MiB.' });
    const chunked = await unfinishedUpload(running.baseUrl, '/api/payments/webhook', {
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': signature(), 'Transfer-Encoding': 'chunked' },
      firstPart: Buffer.alloc(1024 * 1024 + 64 * 1024, ' '),
    });
    expect(chunked.status).toBe(413);
    expect(chunked.json()).toMatchObject({ status: 413, detail: 'The event is larger than 1 MiB.' });
  });

  it('records a signed event of nearly 1 MiB sent in chunks without a length', async () => {
    const event = {
      ...completed('evt_large_1', { id: 'cs_large_1', metadata: { product: 'fixture-book' }, amount: 2900, currency: 'eur', email: 'large@example.com' }),
      padding: 'x'.repeat(1000 * 1000),
    };
    const payload = JSON.stringify(event);
    const bytes = Buffer.from(payload);
    const response = await request(running.baseUrl, '/api/payments/webhook', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Transfer-Encoding': 'chunked',
        'Stripe-Signature': stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
      },
      body: Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536)),
    });
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ outcome: 'recorded' });
  });
});

describe('a training booking, end to end', () => {
  it('checks out, records the booking from the webhook, mails the cancel link, cancels with a refund and frees the seats', async () => {
    const buyer = `trainee-${Date.now()}@example.com`;
    const checkout = await postJson(
      running.baseUrl,
      '/api/payments/training/checkout',
      { product: 'fixture-training', session: 'spring', seats: 3 },
      { from: freshAddress() },
    );
    expect(checkout.status).toBe(200);
    const sent = lastSessionRequest();
    expect(sent).toMatchObject({
      'line_items[0][quantity]': '3',
      'line_items[0][price_data][unit_amount]': '49000',
      'metadata[session]': 'spring',
      'metadata[seats]': '3',
    });
    expect(Number(sent.expires_at)).toBeGreaterThan(Date.now() / 1000);
    const store = openSqliteStore(path.join(running.dataDir, 'lectern.db'));
    expect(await store.bookings.seatsTaken('fixture-training', 'spring', Date.now())).toBe(3);

    const event = completed('evt_training_1', {
      id: 'cs_training_1',
      metadata: { product: 'fixture-training', kind: 'training', session: 'spring', seats: '3', hold: sent['metadata[hold]'] ?? '' },
      amount: 147000,
      currency: 'eur',
      email: buyer,
      paymentIntent: 'pi_training_1',
    });
    expect((await signedEvent(event)).json()).toMatchObject({ outcome: 'recorded' });
    expect(await store.bookings.seatsTaken('fixture-training', 'spring', Date.now())).toBe(3);

    const receipt = await smtp.waitFor((mail) => mail.envelopeTo.includes(buyer));
    const link = /https?:\/\/\S+\/booking\/cancel\?booking=[\w-]+&token=[\w-]+/.exec(receipt.text ?? '')?.[0];
    expect(link).toBeDefined();
    const url = new URL(link!);
    // Back from Stripe, the success page names the order: product, seats and dates, amount, the masked address.
    const success = await request(running.baseUrl, '/checkout/success?session_id=cs_training_1', { headers: { Accept: 'text/html' } });
    expect(success.status).toBe(200);
    expect(success.body).toContain('Fixture Training');
    expect(success.body).toContain('3 seats, Sunday 1 March 2099 and Monday 2 March 2099');
    expect(success.body).toContain('€1,470.00');
    expect(success.body).toContain(`t•••@example.com`);
    expect(success.body).not.toContain(buyer);

    const page = await request(running.baseUrl, `${url.pathname}${url.search}`);
    expect(page.status).toBe(200);
    const booking = url.searchParams.get('booking')!;
    const token = url.searchParams.get('token')!;
    // The booking page's cancel button is a link to a confirmation step, not the cancellation itself.
    expect(page.body).not.toContain('action="/api/booking/cancel"');
    const step = /<a[^>]+href="([^"]*step=confirm[^"]*)"[^>]*>Cancel this booking<\/a>/.exec(page.body)?.[1]?.replaceAll('&amp;', '&');
    expect(step).toBeDefined();
    const confirmation = await request(running.baseUrl, step!, { headers: { Accept: 'text/html' } });
    expect(confirmation.status).toBe(200);
    expect(confirmation.body).toContain('Fixture Training');
    expect(confirmation.body).toContain('Sunday 1 March 2099 and Monday 2 March 2099, 3 seats');
    expect(confirmation.body).toContain('Yes, cancel and refund €1,470.00');
    const form = /<form\b[^>]*action="\/api\/booking\/cancel"[^>]*>([\s\S]*?)<\/form>/.exec(confirmation.body);
    expect(form?.[0], confirmation.body).toMatch(/^<form\b[^>]*method="post"/);
    const attribute = (tag: string, name: string) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];
    const fields = Object.fromEntries(
      [...(form?.[1] ?? '').matchAll(/<input\b[^>]*>/g)]
        .filter(([tag]) => attribute(tag, 'type') === 'hidden')
        .map(([tag]) => [attribute(tag, 'name'), attribute(tag, 'value')]),
    );
    expect(fields, form?.[0]).toEqual({ booking, token, confirm: 'yes' });

    const wrong = await postJson(
      running.baseUrl,
      '/api/booking/cancel',
      { booking, token: `${token.slice(0, -2)}xx`, confirm: 'yes' },
      { from: freshAddress() },
    );
    const unknown = await postJson(running.baseUrl, '/api/booking/cancel', { booking: 'bk_unknown000000', token, confirm: 'yes' }, { from: freshAddress() });
    expect([wrong.status, unknown.status]).toEqual([404, 404]);
    expect(wrong.body).toBe(unknown.body);
    // Without the confirmation the route refuses, naming the field, and nothing is refunded.
    const unconfirmed = await postJson(running.baseUrl, '/api/booking/cancel', { booking, token }, { from: freshAddress() });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.json()).toMatchObject({ errors: [expect.objectContaining({ path: 'confirm' })] });
    expect(stripeApi.requests.filter((req) => req.path === '/v1/refunds' && stripeForm(req.body).payment_intent === 'pi_training_1')).toHaveLength(0);

    // The confirmation's form, posted as a browser without JavaScript sends it.
    const cancel = await postForm(running.baseUrl, '/api/booking/cancel', fields, {
      from: freshAddress(),
      headers: { Origin: new URL(inject('siteUrl')).origin },
    });
    expect(cancel.status).toBe(303);
    expect(cancel.headers.location).toBe('/booking/cancelled');
    const refund = stripeApi.requests.filter((req) => req.path === '/v1/refunds').at(-1)!;
    expect(stripeForm(refund.body)).toMatchObject({ payment_intent: 'pi_training_1' });
    expect(refund.headers['idempotency-key']).toBe(`refund:${booking}`);
    expect(await store.bookings.seatsTaken('fixture-training', 'spring', Date.now())).toBe(0);
    expect((await store.bookings.find(booking))?.status).toBe('cancelled');
    await smtp.waitFor((mail) => mail.envelopeTo.includes(buyer) && (mail.subject ?? '').startsWith('Booking cancelled'));
    const again = await postJson(running.baseUrl, '/api/booking/cancel', { booking, token, confirm: 'yes' }, { from: freshAddress() });
    expect(again.status).toBe(409);
    await store.close();
  });

  it('refuses with 409 when the session has not enough free seats', async () => {
    for (const from of [freshAddress(), freshAddress()]) {
      expect(
        (await postJson(running.baseUrl, '/api/payments/training/checkout', { product: 'fixture-training', session: 'spring', seats: 4 }, { from })).status,
      ).toBe(200);
    }
    const refused = await postJson(
      running.baseUrl,
      '/api/payments/training/checkout',
      { product: 'fixture-training', session: 'spring', seats: 3 },
      { from: freshAddress() },
    );
    expect(refused.status).toBe(409);
    expect((refused.json() as { detail: string }).detail).toContain('2 free seats');
  });

  it('refuses to cancel outside the policy with 409', async () => {
    const buyer = `late-${Date.now()}@example.com`;
    const event = completed('evt_started_1', {
      id: 'cs_started_1',
      metadata: { product: 'fixture-training', kind: 'training', session: 'started', seats: '1' },
      amount: 49000,
      currency: 'eur',
      email: buyer,
      paymentIntent: 'pi_started_1',
    });
    expect((await signedEvent(event)).json()).toMatchObject({ outcome: 'recorded' });
    const receipt = await smtp.waitFor((mail) => mail.envelopeTo.includes(buyer));
    const url = new URL(/https?:\/\/\S+\/booking\/cancel\?booking=[\w-]+&token=[\w-]+/.exec(receipt.text ?? '')![0]);
    const refunds = stripeApi.requests.filter((req) => req.path === '/v1/refunds').length;
    const response = await postJson(
      running.baseUrl,
      '/api/booking/cancel',
      { booking: url.searchParams.get('booking'), token: url.searchParams.get('token'), confirm: 'yes' },
      { from: freshAddress() },
    );
    expect(response.status).toBe(409);
    expect((response.json() as { detail: string }).detail).toContain('7 days before the session starts');
    expect(stripeApi.requests.filter((req) => req.path === '/v1/refunds')).toHaveLength(refunds);
  });
});

describe('seat holds', () => {
  it('lets one address hold at most 4 seats at once across sessions, and holds nothing for a checkout over it', async () => {
    const from = freshAddress();
    const checkout = (session: string, seats: number, address = from) =>
      postJson(running.baseUrl, '/api/payments/training/checkout', { product: 'fixture-training', session, seats, attempt: attemptId() }, { from: address });
    expect((await checkout('autumn', 3)).status).toBe(200);
    const store = openStore();
    const taken = await store.bookings.seatsTaken('fixture-training', 'spring', Date.now());
    const sessions = sessionRequests().length;

    const over = await checkout('spring', 2);
    expect(over.status).toBe(409);
    expect(over.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect((over.json() as { detail: string }).detail).toMatch(/already holds 3 seats .* at most 4 can be held at once/);
    expect(await store.bookings.seatsTaken('fixture-training', 'spring', Date.now())).toBe(taken);
    expect(sessionRequests()).toHaveLength(sessions);

    expect((await checkout('spring', 1)).status).toBe(200);
    expect((await checkout('autumn', 1)).status).toBe(409);
    // The bound is per address: another one may hold its own seats.
    expect((await checkout('autumn', 2, freshAddress())).status).toBe(200);
    const tooMany = await checkout('autumn', 5, freshAddress());
    expect(tooMany.status).toBe(400);
    expect(tooMany.json()).toMatchObject({ errors: [{ path: 'seats', message: 'must be at most 4' }] });
    await store.close();
  });

  it('counts the seats held from one IPv6 /48 together, whichever /56 or /64 of it each checkout comes from', async () => {
    const proxied = await startSite({
      contentDir: inject('contentDir'),
      distDir: inject('distDir'),
      siteUrl: inject('siteUrl'),
      port: await freePort(),
      extraEnv: { STRIPE_SECRET_KEY: 'sk_test_local', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_URL: stripeApi.url, TRUST_PROXY: '1' },
    });
    try {
      const from = freshAddress();
      const checkout = (client: string, seats: number) =>
        postJson(
          proxied.baseUrl,
          '/api/payments/training/checkout',
          { product: 'fixture-training', session: 'autumn', seats, attempt: attemptId() },
          { from, headers: { 'X-Forwarded-For': client } },
        );
      expect((await checkout('2001:db8:4802:100::1', 2)).status).toBe(200);
      expect((await checkout('2001:db8:4802:ff00::2', 2)).status).toBe(200);
      const over = await checkout('2001:db8:4802:7777::3', 1);
      expect(over.status).toBe(409);
      expect((over.json() as { detail: string }).detail).toMatch(/already holds 4 seats/);
      // Another /48 is another client.
      expect((await checkout('2001:db8:4803::1', 2)).status).toBe(200);
    } finally {
      await proxied.stop();
    }
    // It starts a server of its own (TRUST_PROXY): seconds on a machine busy with the other suites.
  }, 90_000);

  it('refunds a payment that arrives when its session is full, mails the buyer so, and answers the webhook 200', async () => {
    // The buyer's hold lapsed; both seats of the winter session are now held by someone else's checkout.
    expect(
      (
        await postJson(
          running.baseUrl,
          '/api/payments/training/checkout',
          { product: 'fixture-training', session: 'winter', seats: 2 },
          { from: freshAddress() },
        )
      ).status,
    ).toBe(200);
    const buyer = `late-payer-${Date.now()}@example.com`;
    const event = completed('evt_oversold_1', {
      id: 'cs_oversold_1',
      metadata: { product: 'fixture-training', kind: 'training', session: 'winter', seats: '1', hold: 'a-hold-that-lapsed' },
      amount: 49000,
      currency: 'eur',
      email: buyer,
      paymentIntent: 'pi_oversold_1',
    });

    // Stripe unreachable: the webhook says so (Stripe sends the event again) and mails nothing.
    refundsDown = true;
    const failed = await signedEvent(event).finally(() => {
      refundsDown = false;
    });
    expect(failed.status).toBe(503);
    expect(failed.headers['retry-after']).toBe('60');

    const handled = await signedEvent(event);
    expect(handled.status).toBe(200);
    expect(handled.json()).toMatchObject({ received: true, outcome: 'refunded' });
    const refunds = refundRequests('pi_oversold_1');
    expect(refunds.length).toBeGreaterThanOrEqual(2);
    expect(new Set(refunds.map((req) => req.headers['idempotency-key']))).toEqual(new Set(['refund:cs_oversold_1']));

    const mail = await smtp.waitFor((message) => message.envelopeTo.includes(buyer));
    expect(mail.subject).toBe('Session full, payment refunded: Fixture Training');
    expect(mail.text).toContain('the session is now full');
    expect(mail.text).toContain('€490.00 has been refunded in full');
    expect(mail.text).not.toContain('/booking/cancel');

    const store = openStore();
    const stored = sqliteStoredData(path.join(running.dataDir, 'lectern.db'));
    expect(await store.bookings.seatsTaken('fixture-training', 'winter', Date.now())).toBe(2);
    expect((await stored.orders()).map((order) => order.id)).not.toContain('cs_oversold_1');
    await Promise.all([store.close(), stored.close()]);

    const refundCount = refunds.length;
    expect((await signedEvent(event)).json()).toMatchObject({ outcome: 'duplicate' });
    expect(refundRequests('pi_oversold_1')).toHaveLength(refundCount);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.messages.filter((message) => message.envelopeTo.includes(buyer))).toHaveLength(1);
  });
});

describe('booking cancellation', () => {
  it('says the cancellation is pending when the refund fails, and a second submission finishes the same refund', async () => {
    const { booking, token } = await bookedSeat('evt_cancel_retry', 'autumn', 'pi_cancel_retry');
    const store = openStore();
    const taken = await store.bookings.seatsTaken('fixture-training', 'autumn', Date.now());

    refundsDown = true;
    const first = await postJson(running.baseUrl, '/api/booking/cancel', { booking, token, confirm: 'yes' }, { from: freshAddress() }).finally(() => {
      refundsDown = false;
    });
    expect(first.status).toBe(503);
    expect(first.headers['retry-after']).toBe('60');
    expect(first.json()).toMatchObject({ title: 'Cancellation pending', detail: expect.stringContaining('Your cancellation is recorded') });
    expect((first.json() as { detail: string }).detail).toContain('Send this form again');
    expect((await store.bookings.find(booking))?.status).toBe('cancelling');
    expect(await store.bookings.seatsTaken('fixture-training', 'autumn', Date.now())).toBe(taken);

    const second = await postJson(running.baseUrl, '/api/booking/cancel', { booking, token, confirm: 'yes' }, { from: freshAddress() });
    expect(second.status).toBe(200);
    expect(second.json()).toMatchObject({ status: 'cancelled', booking });
    const refunds = refundRequests('pi_cancel_retry');
    expect(refunds.length).toBeGreaterThanOrEqual(2);
    expect(new Set(refunds.map((req) => req.headers['idempotency-key']))).toEqual(new Set([`refund:${booking}`]));
    expect((await store.bookings.find(booking))?.status).toBe('cancelled');
    expect(await store.bookings.seatsTaken('fixture-training', 'autumn', Date.now())).toBe(taken - 1);
    await smtp.waitFor((mail) => mail.envelopeTo.includes('evt_cancel_retry@example.com') && (mail.subject ?? '').startsWith('Booking cancelled'));
    expect((await postJson(running.baseUrl, '/api/booking/cancel', { booking, token, confirm: 'yes' }, { from: freshAddress() })).status).toBe(409);
    await store.close();
  });
});

describe('checkout attempts', () => {
  const post = (path: string, body: Record<string, unknown>, from: string) => postJson(running.baseUrl, path, body, { from });
  const url = (response: { json: () => unknown }) => (response.json() as { url: string }).url;

  it('answers two posts of one attempt with one Stripe session, and holds its seats once', async () => {
    const from = freshAddress();
    const attempt = attemptId();
    const before = sessionRequests().length;
    const first = await post('/api/payments/checkout', { product: 'fixture-bundle', attempt }, from);
    const again = await post('/api/payments/checkout', { product: 'fixture-bundle', attempt }, from);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(url(again)).toBe(url(first));
    const keys = sessionRequests()
      .slice(before)
      .map((req) => req.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^checkout:/);
    expect(keys[1]).toBe(keys[0]);

    const store = openStore();
    const taken = await store.bookings.seatsTaken('fixture-training', 'autumn', Date.now());
    const training = { product: 'fixture-training', session: 'autumn', seats: 2, attempt: attemptId() };
    const booked = await post('/api/payments/training/checkout', training, from);
    const rebooked = await post('/api/payments/training/checkout', training, from);
    expect([booked.status, rebooked.status]).toEqual([200, 200]);
    expect(url(rebooked)).toBe(url(booked));
    expect(await store.bookings.seatsTaken('fixture-training', 'autumn', Date.now())).toBe(taken + 2);
    await store.close();
  });

  it('gives two attempts from one address (two people behind one NAT) two sessions', async () => {
    const from = freshAddress();
    for (const path of ['/api/payments/checkout', '/api/payments/special-offer/checkout']) {
      const product = path === '/api/payments/checkout' ? 'fixture-book' : 'fixture-offer';
      const before = sessionRequests().length;
      const one = await post(path, { product, attempt: attemptId() }, from);
      const other = await post(path, { product, attempt: attemptId() }, from);
      expect([one.status, other.status]).toEqual([200, 200]);
      expect(url(other)).not.toBe(url(one));
      const [first, second] = sessionRequests()
        .slice(before)
        .map((req) => req.headers['idempotency-key']);
      expect(second).not.toBe(first);
    }
  });

  it('answers a retry with other fields or under a new attempt with a new session, never a 503', async () => {
    const from = freshAddress();
    const attempt = attemptId();
    const training = (seats: number, id?: string) =>
      post('/api/payments/training/checkout', { product: 'fixture-training', session: 'autumn', seats, ...(id ? { attempt: id } : {}) }, from);
    const first = await training(1, attempt);
    const otherSeats = await training(2, attempt);
    const newAttempt = await training(1, attemptId());
    expect([first.status, otherSeats.status, newAttempt.status]).toEqual([200, 200, 200]);
    expect(new Set([url(first), url(otherSeats), url(newAttempt)]).size).toBe(3);
    // Without an attempt id (a form posted without JavaScript) every post is an attempt of its own.
    const elsewhere = freshAddress();
    const plain = await post('/api/payments/training/checkout', { product: 'fixture-training', session: 'autumn', seats: 1 }, elsewhere);
    const plainAgain = await post('/api/payments/training/checkout', { product: 'fixture-training', session: 'autumn', seats: 1 }, elsewhere);
    expect([plain.status, plainAgain.status]).toEqual([200, 200]);
    expect(url(plainAgain)).not.toBe(url(plain));
  });

  it('takes the attempt id from a form post, and refuses one that is not an attempt id', async () => {
    const from = freshAddress();
    const attempt = attemptId();
    const origin = { Origin: new URL(inject('siteUrl')).origin };
    const first = await postForm(running.baseUrl, '/api/payments/checkout', { product: 'fixture-book', attempt }, { from, headers: origin });
    const again = await postForm(running.baseUrl, '/api/payments/checkout', { product: 'fixture-book', attempt }, { from, headers: origin });
    expect([first.status, again.status]).toEqual([303, 303]);
    expect(again.headers.location).toBe(first.headers.location);
    const empty = await postForm(running.baseUrl, '/api/payments/checkout', { product: 'fixture-book', attempt: '' }, { from, headers: origin });
    expect(empty.status).toBe(303);
    const bad = await postJson(running.baseUrl, '/api/payments/checkout', { product: 'fixture-book', attempt: 'short<>' }, { from });
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ errors: [{ path: 'attempt' }] });
  });
});

describe('index notify', () => {
  it('requires the bearer token', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token', 'Basic aW5kZXg=']) {
      const response = await postJson(
        running.baseUrl,
        '/api/index-notify',
        {},
        { from: freshAddress(), headers: authorization ? { Authorization: authorization } : {} },
      );
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  it('serves the key file', async () => {
    const response = await request(running.baseUrl, '/abcdef0123456789.txt');
    expect(response.status).toBe(200);
    expect(response.body).toBe('abcdef0123456789');
  });

  it('submits every page the first time, then only what changed', async () => {
    const auth = { Authorization: 'Bearer index-notify-secret-token' };
    const first = await request(running.baseUrl, '/api/index-notify', { method: 'POST', from: freshAddress(), headers: auth });
    expect(first.status).toBe(200);
    const body = first.json() as { submitted: number; accepted: boolean; batches: { status: number }[] };
    expect(body.accepted).toBe(true);
    expect(body.batches).toEqual([{ urls: body.submitted, status: 202 }]);
    const sent = JSON.parse(indexNow.requests.at(-1)!.body) as { host: string; key: string; keyLocation: string; urlList: string[] };
    const site = new URL(inject('siteUrl'));
    expect(sent).toMatchObject({ host: site.host, key: 'abcdef0123456789', keyLocation: `${site.origin}/abcdef0123456789.txt` });
    expect(sent.urlList).toContain(`${site.origin}/blog/alpha-post`);
    expect(sent.urlList.some((url) => url.includes('draft-post'))).toBe(false);
    const second = await postJson(running.baseUrl, '/api/index-notify', {}, { from: freshAddress(), headers: auth });
    expect(second.json()).toMatchObject({ submitted: 0 });
  });

  it('submits given URLs of this site only', async () => {
    const auth = { Authorization: 'Bearer index-notify-secret-token' };
    const site = new URL(inject('siteUrl')).origin;
    const ok = await postJson(running.baseUrl, '/api/index-notify', { urls: [`${site}/blog/beta-post`] }, { from: freshAddress(), headers: auth });
    expect(ok.json()).toMatchObject({ submitted: 1 });
    expect(JSON.parse(indexNow.requests.at(-1)!.body).urlList).toEqual([`${site}/blog/beta-post`]);
    const foreign = await postJson(running.baseUrl, '/api/index-notify', { urls: ['https://elsewhere.example/x'] }, { from: freshAddress(), headers: auth });
    expect(foreign.status).toBe(400);
  });
});
