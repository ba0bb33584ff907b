import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { handlersFor } from '@/lib/write-routes/front-door';
import { settings } from '@/lib/settings';
import { subscribeRoute } from '@/lib/write-routes/subscribe';
import { subscribeConfirmRoute } from '@/lib/write-routes/subscribe-confirm';
import { unsubscribeRoute } from '@/lib/write-routes/unsubscribe';
import { FIXTURE_CONTENT } from '../../support/site';
import { testServices } from '../../support/services';
import { post, setWriteRouteSettings, tokenOfLink } from '../../support/write-routes';

/**
 * The author's welcome mail (content/newsletter-welcome.md) and the site's postal address
 * (site.yaml `postalAddress`): a reader who confirms gets the welcome mail once, with the
 * newsletter's footer, the postal address and an unsubscribe link of its own that works.
 */
const contentDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-welcome-content-'));
fs.cpSync(FIXTURE_CONTENT, contentDir, { recursive: true });
fs.appendFileSync(path.join(contentDir, 'site.yaml'), 'postalAddress: |-\n  Fixture & Co\n  1 Example Street\n  Springfield 12345\n');
fs.writeFileSync(
  path.join(contentDir, 'newsletter-welcome.md'),
  '---\nsubject: Welcome to Fixture & Co\n---\nThanks for subscribing. Start with [the alpha post](/blog/alpha-post) and `inline code`.\n',
);
afterAll(() => fs.rmSync(contentDir, { recursive: true, force: true }));
setWriteRouteSettings({ CONTENT_DIR: contentDir });

const { services, afterResponse, outboxMail } = testServices();
const subscribe = handlersFor(subscribeRoute, () => services, settings).POST;
const confirm = handlersFor(subscribeConfirmRoute, () => services, settings).POST;
const unsubscribe = handlersFor(unsubscribeRoute, () => services, settings).POST;
const statusOf = async (email: string) => (await services.store.subscribers.list()).find((subscriber) => subscriber.email === email)?.status;

describe('the welcome mail', () => {
  it('is mailed once a reader confirms, with the footer, the postal address and an unsubscribe link of its own', async () => {
    expect((await subscribe(post('/api/subscribe', { json: { email: 'reader@example.com' } }))).status).toBe(202);
    await afterResponse();
    const [confirmation] = await outboxMail();
    expect(confirmation?.subject).toBe('Confirm your subscription to Fixture & Co');
    const token = tokenOfLink(confirmation?.text ?? '', 'http://localhost:3000/subscribe/confirm?token=');
    expect((await confirm(post('/api/subscribe/confirm', { json: { token } }))).status).toBe(200);
    await afterResponse();
    const mails = await outboxMail();
    expect(mails.map((mail) => mail.subject)).toEqual(['Confirm your subscription to Fixture & Co', 'Welcome to Fixture & Co']);
    const welcome = mails[1];
    expect(welcome?.to?.[0]?.address).toBe('reader@example.com');
    expect(welcome?.html).toContain('<a href="http://localhost:3000/blog/alpha-post"');
    expect(welcome?.html).toContain('Fixture &amp; Co<br>1 Example Street<br>Springfield 12345');
    expect(welcome?.text?.replace(/\s+/g, ' ')).toContain(
      'Thanks for subscribing. Start with the alpha post [http://localhost:3000/blog/alpha-post] and inline code.',
    );
    expect(welcome?.text).toContain('Fixture & Co\n1 Example Street\nSpringfield 12345');
    expect(welcome?.text).toContain('Unsubscribe: http://localhost:3000/subscribe/unsubscribe?token=');
    const header = (name: string) => welcome?.headers.find((entry) => entry.key === name)?.value;
    expect(header('list-unsubscribe')).toMatch(/^<http:\/\/localhost:3000\/api\/subscribe\/unsubscribe\?token=[\w-]+>$/);
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');

    const leave = tokenOfLink(welcome?.text ?? '', 'http://localhost:3000/subscribe/unsubscribe?token=');
    const confirmationLeave = tokenOfLink(confirmation?.text ?? '', 'http://localhost:3000/subscribe/unsubscribe?token=');
    expect(leave).not.toBe(confirmationLeave);
    expect((await unsubscribe(post('/api/subscribe/unsubscribe', { json: { token: leave } }))).status).toBe(200);
    expect(await statusOf('reader@example.com')).toBe('unsubscribed');
  });

  it('is not mailed again for a link already used', async () => {
    const [confirmation] = await outboxMail();
    const token = tokenOfLink(confirmation?.text ?? '', 'http://localhost:3000/subscribe/confirm?token=');
    expect((await confirm(post('/api/subscribe/confirm', { json: { token } }))).status).toBe(404);
    await afterResponse();
    expect(await outboxMail()).toHaveLength(2);
  });
});
