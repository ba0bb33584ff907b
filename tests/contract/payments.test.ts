import path from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import { freshAddress, postForm, postJson, request, unfinishedUpload } from '../support/client';
import { startRecorder, stripeForm } from '../support/recorder';
import { startSmtp } from '../support/smtp';
import { freePort, startSite, type RunningSite } from '../support/site';

const WEBHOOK_SECRET = 'whsec_test_secret';
const stripe = new Stripe('sk_test_local');

let stripeApi: Awaited<ReturnType<typeof startRecorder>>;
let indexNow: Awaited<ReturnType<typeof startRecorder>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let running: RunningSite;

beforeAll(async () => {
  stripeApi = await startRecorder((req, index) => {
    if (req.path === '/v1/checkout/sessions') return { status: 200, body: { id: `cs_test_${index}`, object: 'checkout.session', url: `https://checkout.stripe.com/c/pay/cs_test_${index}` } };
    if (req.path === '/v1/refunds') return { status: 200, body: { id: `re_test_${index}`, object: 'refund', status: 'succeeded' } };
    return { status: 404, body: { error: { message: 'unknown' } } };
  });
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

function completed(id: string, session: { id: string; metadata: Record<string, string>; amount: number; currency: string; email: string; paymentIntent?: string }) {
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

  it('answers a form post with 303 to the Stripe page', async () => {
    const response = await postForm(running.baseUrl, '/api/payments/checkout', { product: 'fixture-book' }, { from: freshAddress(), headers: { Origin: new URL(inject('siteUrl')).origin } });
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

describe('webhook', () => {
  it('refuses a bad signature and records nothing', async () => {
    const payload = JSON.stringify(completed('evt_forged', { id: 'cs_forged', metadata: { product: 'fixture-book' }, amount: 1, currency: 'eur', email: 'x@example.com' }));
    const response = await request(running.baseUrl, '/api/payments/webhook', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_wrong' }) },
      body: payload,
    });
    expect(response.status).toBe(400);
    const store = openSqliteStore(path.join(running.dataDir, 'lectern.db'));
    expect((await store.orders()).map((order) => order.id)).not.toContain('cs_forged');
    await store.close();
  });

  it('records a paid order once, mails a receipt, and a replayed event changes nothing', async () => {
    const event = completed('evt_book_1', { id: 'cs_book_1', metadata: { product: 'fixture-book', kind: 'book' }, amount: 2900, currency: 'eur', email: 'reader@example.com' });
    const first = await signedEvent(event);
    expect(first.status).toBe(200);
    expect(first.json()).toMatchObject({ outcome: 'recorded' });
    const replay = await signedEvent(event);
    expect(replay.json()).toMatchObject({ outcome: 'duplicate' });
    const receipt = await smtp.waitFor((mail) => mail.subject === 'Your receipt from Fixture & Co: Fixture Book');
    expect(receipt.text).toContain('€29.00');
    const store = openSqliteStore(path.join(running.dataDir, 'lectern.db'));
    expect((await store.orders()).filter((order) => order.id === 'cs_book_1')).toEqual([expect.objectContaining({ product: 'fixture-book', amount: 2900, currency: 'EUR', email: 'reader@example.com' })]);
    await store.close();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(smtp.messages.filter((mail) => mail.subject === 'Your receipt from Fixture & Co: Fixture Book')).toHaveLength(1);
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
    const event = { ...completed('evt_large_1', { id: 'cs_large_1', metadata: { product: 'fixture-book' }, amount: 2900, currency: 'eur', email: 'large@example.com' }), padding: 'x'.repeat(1000 * 1000) };
    const payload = JSON.stringify(event);
    const bytes = Buffer.from(payload);
    const response = await request(running.baseUrl, '/api/payments/webhook', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Stripe-Signature': stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }) },
      body: Array.from({ length: Math.ceil(bytes.length / 65536) }, (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536)),
    });
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ outcome: 'recorded' });
  });
});

describe('a training booking, end to end', () => {
  it('checks out, records the booking from the webhook, mails the cancel link, cancels with a refund and frees the seats', async () => {
    const buyer = `trainee-${Date.now()}@example.com`;
    const checkout = await postJson(running.baseUrl, '/api/payments/training/checkout', { product: 'fixture-training', session: 'spring', seats: 3 }, { from: freshAddress() });
    expect(checkout.status).toBe(200);
    const sent = lastSessionRequest();
    expect(sent).toMatchObject({ 'line_items[0][quantity]': '3', 'line_items[0][price_data][unit_amount]': '49000', 'metadata[session]': 'spring', 'metadata[seats]': '3' });
    expect(Number(sent.expires_at)).toBeGreaterThan(Date.now() / 1000);
    const store = openSqliteStore(path.join(running.dataDir, 'lectern.db'));
    expect(await store.seatsTaken('fixture-training', 'spring', Date.now())).toBe(3);

    const event = completed('evt_training_1', { id: 'cs_training_1', metadata: { product: 'fixture-training', kind: 'training', session: 'spring', seats: '3', hold: sent['metadata[hold]'] ?? '' }, amount: 147000, currency: 'eur', email: buyer, paymentIntent: 'pi_training_1' });
    expect((await signedEvent(event)).json()).toMatchObject({ outcome: 'recorded' });
    expect(await store.seatsTaken('fixture-training', 'spring', Date.now())).toBe(3);

    const receipt = await smtp.waitFor((mail) => mail.envelopeTo.includes(buyer));
    const link = /https?:\/\/\S+\/booking\/cancel\?booking=[\w-]+&token=[\w-]+/.exec(receipt.text ?? '')?.[0];
    expect(link).toBeDefined();
    const url = new URL(link!);
    const page = await request(running.baseUrl, `${url.pathname}${url.search}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Cancel this booking');
    const booking = url.searchParams.get('booking')!;
    const token = url.searchParams.get('token')!;

    const wrong = await postJson(running.baseUrl, '/api/booking/cancel', { booking, token: `${token.slice(0, -2)}xx` }, { from: freshAddress() });
    const unknown = await postJson(running.baseUrl, '/api/booking/cancel', { booking: 'bk_unknown000000', token }, { from: freshAddress() });
    expect([wrong.status, unknown.status]).toEqual([404, 404]);
    expect(wrong.body).toBe(unknown.body);

    const cancel = await postJson(running.baseUrl, '/api/booking/cancel', { booking, token }, { from: freshAddress() });
    expect(cancel.status).toBe(200);
    const refund = stripeApi.requests.filter((req) => req.path === '/v1/refunds').at(-1)!;
    expect(stripeForm(refund.body)).toMatchObject({ payment_intent: 'pi_training_1' });
    expect(refund.headers['idempotency-key']).toBe(`refund:${booking}`);
    expect(await store.seatsTaken('fixture-training', 'spring', Date.now())).toBe(0);
    expect((await store.booking(booking))?.status).toBe('cancelled');
    await smtp.waitFor((mail) => mail.envelopeTo.includes(buyer) && (mail.subject ?? '').startsWith('Booking cancelled'));
    const again = await postJson(running.baseUrl, '/api/booking/cancel', { booking, token }, { from: freshAddress() });
    expect(again.status).toBe(409);
    await store.close();
  });

  it('refuses with 409 when the session has not enough free seats', async () => {
    const full = await postJson(running.baseUrl, '/api/payments/training/checkout', { product: 'fixture-training', session: 'spring', seats: 8 }, { from: freshAddress() });
    expect(full.status).toBe(200);
    const refused = await postJson(running.baseUrl, '/api/payments/training/checkout', { product: 'fixture-training', session: 'spring', seats: 3 }, { from: freshAddress() });
    expect(refused.status).toBe(409);
    expect((refused.json() as { detail: string }).detail).toContain('2 free seats');
  });

  it('refuses to cancel outside the policy with 409', async () => {
    const buyer = `late-${Date.now()}@example.com`;
    const event = completed('evt_started_1', { id: 'cs_started_1', metadata: { product: 'fixture-training', kind: 'training', session: 'started', seats: '1' }, amount: 49000, currency: 'eur', email: buyer, paymentIntent: 'pi_started_1' });
    expect((await signedEvent(event)).json()).toMatchObject({ outcome: 'recorded' });
    const receipt = await smtp.waitFor((mail) => mail.envelopeTo.includes(buyer));
    const url = new URL(/https?:\/\/\S+\/booking\/cancel\?booking=[\w-]+&token=[\w-]+/.exec(receipt.text ?? '')![0]);
    const refunds = stripeApi.requests.filter((req) => req.path === '/v1/refunds').length;
    const response = await postJson(running.baseUrl, '/api/booking/cancel', { booking: url.searchParams.get('booking'), token: url.searchParams.get('token') }, { from: freshAddress() });
    expect(response.status).toBe(409);
    expect((response.json() as { detail: string }).detail).toContain('7 days before the session starts');
    expect(stripeApi.requests.filter((req) => req.path === '/v1/refunds')).toHaveLength(refunds);
  });
});

describe('index notify', () => {
  it('requires the bearer token', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token', 'Basic aW5kZXg=']) {
      const response = await postJson(running.baseUrl, '/api/index-notify', {}, { from: freshAddress(), headers: authorization ? { Authorization: authorization } : {} });
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
