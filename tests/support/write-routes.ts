import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import PostalMime, { type Email } from 'postal-mime';
import { startRecorder } from './recorder';

/**
 * The settings a write route needs when its handlers are called in the test
 * process: the fixture content, a fresh SQLite store in a folder of its own,
 * and the client address taken from `x-real-ip` (what a platform's edge
 * would set). Call it before lib/ reads any setting: at the top of a test
 * file, before the `await import` of a module that reads one as it loads.
 */
export function setWriteRouteSettings(extra: Record<string, string> = {}): void {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-write-routes-'));
  Object.assign(process.env, {
    SITE_URL: 'http://localhost:3000',
    CONTENT_DIR: path.resolve('tests/fixtures/content'),
    DATA_DIR: dataDir,
    CLIENT_IP_HEADER: 'x-real-ip',
    REDIS_URL: '',
    UPSTASH_REDIS_REST_URL: '',
    UPSTASH_REDIS_REST_TOKEN: '',
    SMTP_URL: '',
    STRIPE_SECRET_KEY: '',
    ...extra,
  });
}

let clients = 0;
/** A client address no other request of the test file has used, so every test starts with a whole quota. */
export function freshClient(): string {
  clients += 1;
  return `10.0.${Math.floor(clients / 250)}.${(clients % 250) + 1}`;
}

type Body = { json: unknown } | { form: Record<string, string> } | { raw: BodyInit; type?: string } | Record<string, never>;

/** A POST as a browser form (`form`, with Accept text/html) or a program (`json`) sends it, from `client`. */
export function post(url: string, body: Body, options: { client?: string; headers?: Record<string, string>; method?: string } = {}): Request {
  const headers = new Headers({ 'x-real-ip': options.client ?? freshClient(), ...options.headers });
  let payload: BodyInit | undefined;
  if ('json' in body) {
    headers.set('content-type', 'application/json');
    payload = JSON.stringify(body.json);
  } else if ('form' in body) {
    headers.set('content-type', 'application/x-www-form-urlencoded');
    if (!headers.has('accept')) headers.set('accept', 'text/html,application/xhtml+xml');
    payload = new URLSearchParams(body.form).toString();
  } else if ('raw' in body) {
    if (body.type) headers.set('content-type', body.type);
    payload = body.raw;
  }
  return new Request(new URL(url, 'http://localhost:3000'), { method: options.method ?? 'POST', headers, body: payload });
}

/** Every message written to `folder` so far (mail is written there when SMTP_URL is unset), oldest first. */
export async function outboxMail(folder: string): Promise<Email[]> {
  if (!fs.existsSync(folder)) return [];
  const names = fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.eml'))
    .sort();
  return Promise.all(names.map((name) => PostalMime.parse(fs.readFileSync(path.join(folder, name)))));
}

/** The value of `token` in the first link of `text` that starts with `prefix`. */
export function tokenOfLink(text: string, prefix: string): string {
  const link = text.split(/\s+/).find((word) => word.startsWith(prefix));
  return new URL(link ?? 'http://none.example').searchParams.get('token') ?? '';
}

/**
 * A stand-in for Stripe's API that records what it was sent: a Checkout
 * Session or a refund for each request, numbered. `settings` point the
 * services at it (`testServices` in ./services.ts).
 */
export async function startStripeStandIn() {
  const recorder = await startRecorder((request, index) => {
    if (request.path === '/v1/checkout/sessions')
      return { status: 200, body: { id: `cs_test_${index}`, object: 'checkout.session', url: `https://checkout.stripe.com/c/pay/cs_test_${index}` } };
    if (request.path === '/v1/refunds') return { status: 200, body: { id: `re_test_${index}`, object: 'refund', status: 'succeeded' } };
    return { status: 404, body: { error: { type: 'invalid_request_error', message: 'unknown' } } };
  });
  return { ...recorder, settings: { STRIPE_SECRET_KEY: 'sk_test_local', STRIPE_API_URL: recorder.url } };
}
