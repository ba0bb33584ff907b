import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { request } from '../support/client';
import { startNginx, type RunningNginx } from '../support/nginx';
import { downloadLinks, paidCheckout, signedEvent } from '../support/payments';
import { startRecorder } from '../support/recorder';
import { startSmtp, type ReceivedMail } from '../support/smtp';
import { freePort, startSite, type RunningSite } from '../support/site';

const WEBHOOK_SECRET = 'whsec_nginx_downloads';
const deliverablePath = (file: string) => path.join(inject('contentDir'), 'deliverables', file);

/**
 * Download links behind the shipped nginx (deploy/nginx.conf, tests/support/nginx.ts): lectern,
 * with DOWNLOADS_ACCEL_PREFIX set as the README says, checks and counts each link and hands the
 * file to nginx's `internal` location (X-Accel-Redirect); nginx sends the bytes, with Range.
 */
describe('downloads behind nginx (X-Accel-Redirect)', () => {
  let stripeApi: Awaited<ReturnType<typeof startRecorder>>;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let lectern: RunningSite;
  let nginx: RunningNginx;

  beforeAll(async () => {
    stripeApi = await startRecorder(() => ({ status: 404, body: { error: { type: 'invalid_request_error', message: 'unknown' } } }));
    smtp = await startSmtp();
    lectern = await startSite({
      contentDir: inject('contentDir'),
      distDir: inject('distDir'),
      siteUrl: inject('siteUrl'),
      port: await freePort(),
      extraEnv: {
        TRUST_PROXY: '1',
        STRIPE_SECRET_KEY: 'sk_test_local',
        STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
        STRIPE_API_URL: stripeApi.url,
        DOWNLOAD_SECRET: 'a-download-signing-key-for-the-nginx-test',
        DOWNLOADS_ACCEL_PREFIX: '/_deliverables/',
        SMTP_URL: smtp.url,
        MAIL_POLL_MS: '200',
      },
    });
    // One instance, as the shipped file has it.
    const port = Number(new URL(lectern.baseUrl).port);
    nginx = await startNginx([port], { deliverables: path.join(inject('contentDir'), 'deliverables') });
  });

  afterAll(async () => {
    await nginx?.stop();
    await lectern?.stop();
    await Promise.all([stripeApi?.close(), smtp?.close()]);
  });

  async function buy(product: string, buyer: string, paymentIntent: string): Promise<string[]> {
    const answer = await signedEvent(lectern.baseUrl, WEBHOOK_SECRET, paidCheckout(product, buyer, paymentIntent));
    expect(answer.json()).toMatchObject({ outcome: 'recorded' });
    const mail: ReceivedMail = await smtp.waitFor((message) => message.envelopeTo.includes(buyer));
    return downloadLinks(mail);
  }

  it('sends the file from nginx after lectern checked the link: its bytes, type, attachment name, length and ETag', async () => {
    const [pdf, epub] = await buy('fixture-book', 'nginx-book@example.com', 'pi_nginx_book');
    const file = deliverablePath('book/fixture-book.pdf');
    const bytes = fs.readFileSync(file);
    const stat = fs.statSync(file);

    // lectern itself answers only the redirect, with no bytes.
    const direct = await request(lectern.baseUrl, epub!);
    expect(direct.status).toBe(200);
    expect(direct.headers['x-accel-redirect']).toBe('/_deliverables/book/fixture-book.epub');
    expect(direct.bytes.length).toBe(0);

    const answer = await request(nginx.http, pdf!);
    expect(answer.status).toBe(200);
    expect(answer.bytes.equals(bytes)).toBe(true);
    expect(answer.headers['x-accel-redirect']).toBeUndefined();
    expect(answer.headers).toMatchObject({
      'content-type': 'application/pdf',
      'content-disposition': `attachment; filename="fixture-book.pdf"; filename*=UTF-8''fixture-book.pdf`,
      'content-length': String(bytes.length),
      'accept-ranges': 'bytes',
      'cache-control': 'no-store',
    });
    // nginx's own ETag for a file from disk (its modification time and size, in hex), not lectern's.
    expect(answer.headers.etag).toBe(`"${Math.floor(stat.mtimeMs / 1000).toString(16)}-${stat.size.toString(16)}"`);
    // Nothing of a download is kept in nginx's cache.
    const again = await request(nginx.http, pdf!);
    expect(again.status).toBe(200);
    expect(again.bytes.equals(bytes)).toBe(true);
  });

  it('answers Range through nginx with 206 and the right bytes, and counts only whole downloads', async () => {
    const [link] = await buy('fixture-bundle', 'nginx-range@example.com', 'pi_nginx_range');
    const bytes = fs.readFileSync(deliverablePath('bundle/fixture-bundle.zip'));
    const part = await request(nginx.http, link!, { headers: { Range: 'bytes=10-29' } });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 10-29/${bytes.length}`);
    expect(part.bytes.equals(bytes.subarray(10, 30))).toBe(true);
    const tail = await request(nginx.http, link!, { headers: { Range: 'bytes=-5' } });
    expect(tail.status).toBe(206);
    expect(tail.bytes.equals(bytes.subarray(bytes.length - 5))).toBe(true);
    for (let count = 1; count <= 5; count++) expect((await request(nginx.http, link!)).bytes.equals(bytes)).toBe(true);
    const sixth = await request(nginx.http, link!);
    expect(sixth.status).toBe(410);
    expect(sixth.json()).toMatchObject({ title: 'Download limit reached' });
  });

  it("gives a refused link lectern's page, never the file", async () => {
    const [link] = await buy('fixture-bundle', 'nginx-refused@example.com', 'pi_nginx_refused');
    const bytes = fs.readFileSync(deliverablePath('bundle/fixture-bundle.zip'));
    const tampered = link!.replace(/signature=(.)/, (_all, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`);
    const page = await request(nginx.http, tampered, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(404);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('/downloads');
    expect(page.headers['x-accel-redirect']).toBeUndefined();
    expect(page.bytes.includes(bytes)).toBe(false);

    const refunded = {
      id: 'evt_nginx_refund',
      object: 'event',
      type: 'charge.refunded',
      data: { object: { id: 'ch_nginx', object: 'charge', payment_intent: 'pi_nginx_refused', refunded: true, amount_refunded: 2900 } },
    };
    expect((await signedEvent(lectern.baseUrl, WEBHOOK_SECRET, refunded)).json()).toMatchObject({ outcome: 'refunded' });
    const gone = await request(nginx.http, link!);
    expect(gone.status).toBe(410);
    expect(gone.json()).toMatchObject({ title: 'Order refunded' });
  });

  it('never serves the internal location to a client that asks for it directly', async () => {
    const bytes = fs.readFileSync(deliverablePath('book/fixture-book.pdf'));
    for (const url of ['/_deliverables/book/fixture-book.pdf', '/_deliverables/', '/_deliverables/../deliverables/book/fixture-book.pdf']) {
      const answer = await request(nginx.http, url);
      expect(answer.status, url).toBe(404);
      expect(answer.bytes.includes(bytes), url).toBe(false);
    }
  });
});
