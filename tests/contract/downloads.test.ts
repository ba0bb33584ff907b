import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAddress, postForm, postJson, request } from '../support/client';
import { downloadLinks, paidCheckout, signedEvent } from '../support/payments';
import { startRecorder } from '../support/recorder';
import { flushRedis, testRedisUrl } from '../support/redis';
import { startSmtp, type ReceivedMail } from '../support/smtp';
import { freePort, startSite, type RunningSite } from '../support/site';
import { startUpstashStandIn } from '../support/upstash';

const WEBHOOK_SECRET = 'whsec_downloads_secret';
const DOWNLOAD_SECRET = 'a-download-signing-key-of-32-chars-or-more';
const DAY_MS = 24 * 60 * 60 * 1000;
const deliverable = (file: string) => fs.readFileSync(path.join(inject('contentDir'), 'deliverables', file));

let stripeApi: Awaited<ReturnType<typeof startRecorder>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let running: RunningSite;

const env = () => ({
  STRIPE_SECRET_KEY: 'sk_test_local',
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_API_URL: stripeApi.url,
  DOWNLOAD_SECRET,
  SMTP_URL: smtp.url,
  MAIL_POLL_MS: '200',
});

beforeAll(async () => {
  stripeApi = await startRecorder(() => ({ status: 404, body: { error: { type: 'invalid_request_error', message: 'unknown' } } }));
  smtp = await startSmtp();
  running = await startSite({
    contentDir: inject('contentDir'),
    distDir: inject('distDir'),
    siteUrl: inject('siteUrl'),
    port: await freePort(),
    extraEnv: env(),
  });
});
afterAll(async () => {
  await running?.stop();
  await Promise.all([stripeApi?.close(), smtp?.close()]);
});

const signed = (baseUrl: string, event: object) => signedEvent(baseUrl, WEBHOOK_SECRET, event);

/** Pays for a product with a signed checkout.session.completed event and returns the buyer's one mail. */
async function buy(product: string, buyer: string, paymentIntent: string): Promise<ReceivedMail> {
  const event = paidCheckout(product, buyer, paymentIntent);
  expect((await signed(running.baseUrl, event)).json()).toMatchObject({ outcome: 'recorded' });
  expect((await signed(running.baseUrl, event)).json()).toMatchObject({ outcome: 'duplicate' });
  const mail = await smtp.waitFor((message) => message.envelopeTo.includes(buyer));
  expect(smtp.messages.filter((message) => message.envelopeTo.includes(buyer))).toHaveLength(1);
  return mail;
}

const links = downloadLinks;

const download = (link: string, headers: Record<string, string> = {}, baseUrl = running.baseUrl) => request(baseUrl, link, { headers });

describe('delivery', () => {
  it('mails a book buyer one link per file, each downloading exactly the file, as an attachment with its type, length and ETag', async () => {
    const mail = await buy('fixture-book', 'book-buyer@example.com', 'pi_book');
    expect(mail.text).toContain('Thank you for your purchase of Fixture Book.');
    // The order's id is in the links only.
    expect(mail.text?.replace(/https?:\/\/\S+/g, '')).not.toContain('cs_pi_book');
    const [pdf, epub, ...rest] = links(mail);
    expect(rest).toEqual([]);
    const first = await download(pdf!);
    expect(first.status).toBe(200);
    expect(first.bytes.equals(deliverable('book/fixture-book.pdf'))).toBe(true);
    expect(first.headers).toMatchObject({
      'content-type': 'application/pdf',
      'content-disposition': `attachment; filename="fixture-book.pdf"; filename*=UTF-8''fixture-book.pdf`,
      'content-length': String(deliverable('book/fixture-book.pdf').length),
      'cache-control': 'no-store',
      'accept-ranges': 'bytes',
    });
    expect(first.headers.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    const second = await download(epub!);
    expect(second.headers['content-type']).toBe('application/epub+zip');
    expect(second.bytes.equals(deliverable('book/fixture-book.epub'))).toBe(true);
  });

  it('mails a bundle buyer its zip, and an offer buyer the files of every product the offer includes', async () => {
    const bundle = links(await buy('fixture-bundle', 'bundle-buyer@example.com', 'pi_bundle'));
    expect(bundle).toHaveLength(1);
    expect((await download(bundle[0]!)).bytes.equals(deliverable('bundle/fixture-bundle.zip'))).toBe(true);
    const offer = links(await buy('fixture-offer', 'offer-buyer@example.com', 'pi_offer'));
    const bodies = await Promise.all(offer.map(async (link) => (await download(link)).bytes));
    expect(bodies).toEqual([deliverable('book/fixture-book.pdf'), deliverable('book/fixture-book.epub'), deliverable('bundle/fixture-bundle.zip')]);
  });

  it('resumes a download with Range (206, the right bytes) without counting it; the sixth whole download is refused', async () => {
    const [link] = links(await buy('fixture-bundle', 'range-buyer@example.com', 'pi_range'));
    const bytes = deliverable('bundle/fixture-bundle.zip');
    const part = await download(link!, { Range: 'bytes=10-29' });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 10-29/${bytes.length}`);
    expect(part.headers['content-length']).toBe('20');
    expect(part.bytes.equals(bytes.subarray(10, 30))).toBe(true);
    const tail = await download(link!, { Range: 'bytes=-5' });
    expect(tail.bytes.equals(bytes.subarray(bytes.length - 5))).toBe(true);
    expect((await download(link!, { Range: `bytes=${bytes.length}-` })).status).toBe(416);
    for (let count = 1; count <= 5; count++) expect((await download(link!)).status).toBe(200);
    const sixth = await download(link!);
    expect(sixth.status).toBe(410);
    expect(sixth.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(sixth.json()).toMatchObject({ title: 'Download limit reached', detail: expect.stringContaining('/downloads') });
    const page = await download(link!, { Accept: 'text/html' });
    expect(page.status).toBe(410);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('Ask for fresh links at /downloads');
    expect(page.bytes.includes(bytes)).toBe(false);
  });

  it('refuses a tampered link with a page that says what to do, never the file', async () => {
    const [link] = links(await buy('fixture-bundle', 'tamper-buyer@example.com', 'pi_tamper'));
    const other = link!.replace(/\/0\?/, '/1?');
    const later = link!.replace(/expires=(\d+)/, (_all, expires: string) => `expires=${Number(expires) + 1}`);
    const forged = link!.replace(/signature=(.)/, (_all, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`);
    for (const bad of [other, later, forged, '/downloads/cs_pi_tamper/0']) {
      const answer = await download(bad);
      expect(answer.status).toBe(404);
      expect(answer.json()).toMatchObject({ title: 'Download link not valid' });
    }
    expect((await download(link!)).status).toBe(200);
  });

  it('stops every link of an order once Stripe reports its payment refunded', async () => {
    const [pdf, epub] = links(await buy('fixture-book', 'refund-buyer@example.com', 'pi_refund'));
    expect((await download(pdf!)).status).toBe(200);
    const refunded = {
      id: 'evt_refund_1',
      object: 'event',
      type: 'charge.refunded',
      data: { object: { id: 'ch_1', object: 'charge', payment_intent: 'pi_refund', refunded: true, amount_refunded: 2900 } },
    };
    expect((await signed(running.baseUrl, refunded)).json()).toMatchObject({ outcome: 'refunded' });
    for (const link of [pdf!, epub!]) {
      const answer = await download(link);
      expect(answer.status).toBe(410);
      expect(answer.json()).toMatchObject({ title: 'Order refunded' });
    }
  });

  it('refuses a link once its 30 days are over (a server whose clock is 31 days ahead, on the same store)', async () => {
    const [link] = links(await buy('fixture-bundle', 'late-buyer@example.com', 'pi_late'));
    const later = await startSite({
      contentDir: inject('contentDir'),
      distDir: inject('distDir'),
      siteUrl: inject('siteUrl'),
      port: await freePort(),
      extraEnv: { ...env(), DATA_DIR: running.dataDir, LECTERN_CLOCK_OFFSET_MS: String(31 * DAY_MS) },
    });
    try {
      const now = await download(link!, {}, later.baseUrl);
      expect(now.status).toBe(410);
      expect(now.json()).toMatchObject({ title: 'Download link expired' });
      const early = await startSite({
        contentDir: inject('contentDir'),
        distDir: inject('distDir'),
        siteUrl: inject('siteUrl'),
        port: await freePort(),
        extraEnv: { ...env(), DATA_DIR: running.dataDir, LECTERN_CLOCK_OFFSET_MS: String(29 * DAY_MS) },
      });
      try {
        expect((await download(link!, {}, early.baseUrl)).status).toBe(200);
      } finally {
        await early.stop();
      }
    } finally {
      await later.stop();
    }
  }, 90_000);
});

describe('send me my purchases again', () => {
  it('answers a buyer and a stranger the same, mails only the buyer fresh links, once per cooldown, with nothing typed in it', async () => {
    await buy('fixture-book', 'Again-Buyer@example.com', 'pi_again');
    const before = smtp.messages.length;
    const buyer = await postJson(running.baseUrl, '/api/downloads/resend', { email: 'again-buyer@EXAMPLE.com' }, { from: freshAddress() });
    const stranger = await postJson(running.baseUrl, '/api/downloads/resend', { email: 'stranger@example.com' }, { from: freshAddress() });
    expect(buyer.status).toBe(202);
    expect(stranger.status).toBe(buyer.status);
    expect(stranger.json()).toEqual(buyer.json());
    const mail = await smtp.waitFor((message) => message.subject?.startsWith('Your purchases from') === true);
    expect(mail.envelopeTo).toEqual(['Again-Buyer@example.com']);
    expect(mail.text).not.toContain('again-buyer@EXAMPLE.com');
    const fresh = links(mail);
    expect(fresh).toHaveLength(2);
    expect((await download(fresh[0]!)).bytes.equals(deliverable('book/fixture-book.pdf'))).toBe(true);
    // A second ask within the cooldown sends nothing more; a form post lands on the same page either way.
    const again = await postForm(
      running.baseUrl,
      '/api/downloads/resend',
      { email: 'again-buyer@example.com' },
      {
        from: freshAddress(),
        headers: { Origin: new URL(inject('siteUrl')).origin },
      },
    );
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe('/downloads/sent');
    // The page it lands on is the site's own, not a download link refused.
    const landed = await request(running.baseUrl, '/downloads/sent', { headers: { Accept: 'text/html' } });
    expect(landed.status).toBe(200);
    expect(landed.headers['content-type']).toMatch(/^text\/html/);
    expect(landed.body).toContain('/support');
    const strangerForm = await postForm(
      running.baseUrl,
      '/api/downloads/resend',
      { email: 'stranger2@example.com' },
      {
        from: freshAddress(),
        headers: { Origin: new URL(inject('siteUrl')).origin },
      },
    );
    expect(strangerForm.headers.location).toBe(again.headers.location);
    // The next mail the buyer gets (a new purchase) comes after anything the resends would have sent.
    await buy('fixture-bundle', 'again-buyer-2@example.com', 'pi_again_2');
    expect(smtp.messages.slice(before).filter((message) => message.subject?.startsWith('Your purchases from'))).toHaveLength(1);
    expect(smtp.messages.some((message) => message.envelopeTo.includes('stranger@example.com') || message.envelopeTo.includes('stranger2@example.com'))).toBe(
      false,
    );
  });

  it('limits one client to 5 asks in 10 minutes, like the subscribe form', async () => {
    const from = freshAddress();
    const answers = [];
    for (let index = 0; index < 6; index++)
      answers.push((await postJson(running.baseUrl, '/api/downloads/resend', { email: `limit-${index}@example.com` }, { from })).status);
    expect(answers).toEqual([202, 202, 202, 202, 202, 429]);
  });

  it('shows the form on /downloads', async () => {
    const page = await request(running.baseUrl, '/downloads', { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.body).toContain('action="/api/downloads/resend"');
    expect(page.body).toContain('Send me my purchases again');
  });
});

describe('on a platform host (next start, PLATFORM_MODE, the Upstash stand-in)', () => {
  it("serves a buyer's files from Next's route, with Range, and refuses a tampered link, without lectern's server", async () => {
    // Database 15 is this test's alone.
    await flushRedis(testRedisUrl(15));
    const upstash = await startUpstashStandIn(testRedisUrl(15));
    const platform = await startSite({
      contentDir: inject('contentDir'),
      distDir: inject('distDir'),
      siteUrl: inject('siteUrl'),
      port: await freePort(),
      nextStart: true,
      extraEnv: { ...env(), PLATFORM_MODE: '1', UPSTASH_REDIS_REST_URL: upstash.url, UPSTASH_REDIS_REST_TOKEN: upstash.token, CLIENT_IP_HEADER: 'x-real-ip' },
    });
    try {
      const buyer = 'platform-buyer@example.com';
      expect((await signed(platform.baseUrl, paidCheckout('fixture-book', buyer, 'pi_platform_book'))).json()).toMatchObject({ outcome: 'recorded' });
      const [pdf, epub] = links(await smtp.waitFor((message) => message.envelopeTo.includes(buyer)));
      const headers = { 'X-Real-IP': freshAddress() };
      const whole = await download(pdf!, headers, platform.baseUrl);
      expect(whole.status).toBe(200);
      expect(whole.bytes.equals(deliverable('book/fixture-book.pdf'))).toBe(true);
      // Next's own server drops a route's Content-Length and sends the stream chunked (README, "Selling").
      expect(whole.headers).toMatchObject({
        'content-type': 'application/pdf',
        'content-disposition': `attachment; filename="fixture-book.pdf"; filename*=UTF-8''fixture-book.pdf`,
        'accept-ranges': 'bytes',
        'cache-control': 'no-store',
      });
      expect(whole.headers.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
      const epubBytes = deliverable('book/fixture-book.epub');
      const part = await download(epub!, { ...headers, Range: 'bytes=100-199' }, platform.baseUrl);
      expect(part.status).toBe(206);
      expect(part.headers['content-range']).toBe(`bytes 100-199/${epubBytes.length}`);
      expect(part.bytes.equals(epubBytes.subarray(100, 200))).toBe(true);
      const forged = pdf!.replace(/signature=(.)/, (_all, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`);
      const refused = await download(forged, headers, platform.baseUrl);
      expect(refused.status).toBe(404);
      expect(refused.json()).toMatchObject({ title: 'Download link not valid' });
    } finally {
      await platform.stop();
      await upstash.close();
    }
  }, 90_000);
});
