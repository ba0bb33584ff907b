import nodemailer from 'nodemailer';
import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { message } from '@/lib/services/mail/transport';
import { encodeMail, newsletterMessageId, personalEncodedMail, personalMail, renderNewsletterMail, type MailPost } from '@/lib/newsletter/mail';

const site = { name: 'Field "Notes"', url: 'https://notes.example/', language: 'en' };
const post: MailPost = {
  slug: 'hello-mail',
  title: 'Hello & welcome',
  description: 'A first post.',
  dateMillis: Date.UTC(2026, 10, 20),
  url: 'https://notes.example/blog/hello-mail',
  markdownUrl: 'https://notes.example/blog/hello-mail.md',
  body: [
    'Read [the guide](/guide) and look:',
    '',
    '![A chart](/images/chart.png)',
    '',
    '<script>alert(1)</script>',
    '',
    '## Code',
    '',
    '```ts',
    'const answer = 42;',
    '```',
    '',
    'Inline `npm run build` too.',
  ].join('\n'),
};
const links = { page: 'https://notes.example/subscribe/unsubscribe?token=tok123', oneClick: 'https://notes.example/api/subscribe/unsubscribe?token=tok123' };

describe('the newsletter mail', async () => {
  const mail = await renderNewsletterMail(post, site);
  // As the store gives it: with the name typed when subscribing.
  const recipient = { email: 'reader@example.com', name: 'URGENT: call +1 555 0100' };
  const copy = personalMail(mail, recipient, links, site);

  it('is titled with the post and links to the post and its markdown in both parts', () => {
    expect(copy.subject).toBe('Hello & welcome');
    expect(copy.html).toContain('Hello &amp; welcome');
    for (const part of [copy.html, copy.text]) {
      expect(part).toContain('https://notes.example/blog/hello-mail');
      expect(part).toContain('https://notes.example/blog/hello-mail.md');
    }
  });

  it('makes every URL of the post absolute and carries no script', () => {
    expect(copy.html).toContain('href="https://notes.example/guide"');
    expect(copy.html).toContain('src="https://notes.example/images/chart.png"');
    expect(copy.html).not.toMatch(/<script/i);
    expect(copy.html).not.toMatch(/(?:href|src)="\/(?!\/)/);
  });

  it('inlines its styles, keeps code readable on a fixed dark background, and adapts to dark mode', () => {
    expect(copy.html).toMatch(/<pre[^>]*style="[^"]*background: ?#1c1d22[^"]*color: ?#e8e6e1/);
    expect(copy.html).toMatch(/<body[^>]*style="[^"]*color: ?#1d1e22/);
    expect(copy.html).toContain('<meta name="color-scheme" content="light dark">');
    expect(copy.html).toContain('@media (prefers-color-scheme: dark)');
    expect(copy.html.replace(/<[^>]+>/g, '')).toContain('const answer = 42;');
  });

  it('has a plain-text part made from the same post', () => {
    expect(copy.text).toContain('Read the guide [https://notes.example/guide]');
    expect(copy.text).toContain('const answer = 42;');
    expect(copy.text).toContain('Inline npm run build too.');
    expect(copy.text).not.toContain('<');
  });

  it("carries the recipient's own unsubscribe links, one-click headers, List-Id and a Message-ID fixed per post and address", () => {
    // The typed name is nowhere in the headers.
    expect(copy.to).toEqual({ address: 'reader@example.com' });
    expect(JSON.stringify(copy.headers)).not.toContain('URGENT');
    expect(copy.html).toContain(`href="${links.page}"`);
    expect(copy.text).toContain(`Unsubscribe: ${links.page}`);
    expect(copy.html).not.toContain('unsubscribe.invalid');
    expect(copy.headers).toEqual({
      'List-Unsubscribe': `<${links.oneClick}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      'List-Id': 'Field Notes <newsletter.notes.example>',
      'Message-ID': newsletterMessageId('hello-mail', 'reader@example.com', site.url),
    });
  });

  it('gives each post and address its own Message-ID, the same every time', () => {
    const id = newsletterMessageId('hello-mail', 'reader@example.com', site.url);
    expect(id).toMatch(/^<hello-mail\.[A-Za-z0-9_-]{24}@notes\.example>$/);
    expect(newsletterMessageId('hello-mail', 'Reader@Example.com', site.url)).toBe(id);
    expect(newsletterMessageId('hello-mail', 'other@example.com', site.url)).not.toBe(id);
    expect(newsletterMessageId('other-post', 'reader@example.com', site.url)).not.toBe(id);
  });
});

describe("the newsletter mail's postal address", () => {
  it('ends the footer of both parts when site.yaml gives one (line breaks kept, escaped), and is absent otherwise', async () => {
    const withAddress = await renderNewsletterMail(post, { ...site, postalAddress: 'Field <Notes>\n1 Example Street' });
    expect(withAddress.html).toMatch(/<p class="footer"[^>]*>Field &lt;Notes&gt;<br>1 Example Street<\/p>\s*<\/div><\/body><\/html>$/);
    expect(withAddress.text.endsWith('\n\nField <Notes>\n1 Example Street')).toBe(true);
    const without = await renderNewsletterMail(post, site);
    expect(without.html).not.toContain('Example Street');
    expect(without.text.endsWith('Unsubscribe: https://unsubscribe.invalid/lectern')).toBe(true);
  });
});

describe("the newsletter mail's SVG images", () => {
  const diagram: MailPost = {
    ...post,
    body: '![Diagram of a token bucket](/images/token-bucket.svg)\n\n![Elsewhere](https://elsewhere.example/chart.svg)\n\n![A chart](/images/chart.png)',
  };
  /** A PNG's width and height, from its IHDR chunk. */
  const pngSize = (base64: string) => {
    const bytes = Buffer.from(base64, 'base64');
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  };

  it('are sent as PNG inside the message, with their alt text, a width the column holds and the height in proportion', async () => {
    const mail = await renderNewsletterMail(diagram, site);
    const [image, ...others] = mail.images ?? [];
    expect(others).toEqual([]);
    expect(image).toMatchObject({ filename: 'token-bucket.png', contentType: 'image/png', width: 544, height: 272 });
    expect(image?.cid).toMatch(/^token-bucket\.[0-9a-f]{16}@lectern$/);
    // public/images/token-bucket.svg is 800 × 400: shown at 544 × 272, rendered at twice that.
    expect(pngSize(image?.content ?? '')).toEqual({ width: 1088, height: 544 });
    expect(mail.html).toMatch(new RegExp(`<img src="cid:${image?.cid.replace(/\./g, '\\.')}" alt="Diagram of a token bucket" width="544" height="272"`));
    expect(mail.html).not.toContain('token-bucket.svg');
    // Another site's SVG, and images that are not SVG, stay as they are.
    expect(mail.html).toContain('src="https://elsewhere.example/chart.svg"');
    expect(mail.html).toContain('src="https://notes.example/images/chart.png"');
    // The text part links the diagram on the site.
    expect(mail.text).toContain('https://notes.example/images/token-bucket.svg');
  });

  it('leave as an inline part of each reader’s message, named by the HTML’s cid', async () => {
    const mail = await renderNewsletterMail(diagram, site);
    const copy = personalMail(mail, { email: 'reader@example.com' }, links, site);
    const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true });
    const sent = await transporter.sendMail(message(copy, { name: 'Notes', address: 'no-reply@notes.example' }));
    const parsed = await PostalMime.parse(sent.message as Buffer);
    expect(parsed.attachments.map((part) => ({ type: part.mimeType, id: part.contentId, disposition: part.disposition }))).toEqual([
      { type: 'image/png', id: `<${mail.images?.[0]?.cid}>`, disposition: 'inline' },
    ]);
  });

  it('reads the same when encoded once per send: each reader gets the same text, HTML, headers and images as a copy made whole', async () => {
    const mail = await renderNewsletterMail(diagram, site);
    const encoded = encodeMail(mail);
    const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true });
    const from = { name: 'Notes', address: 'no-reply@notes.example' };
    // Tokens of several lengths (a real one is 32 characters).
    for (const token of ['a', 'tok123', 'Zz9-_'.repeat(6) + 'ab', 'x'.repeat(40)]) {
      const readerLinks = {
        page: `https://notes.example/subscribe/unsubscribe?token=${token}`,
        oneClick: `https://notes.example/api/subscribe/unsubscribe?token=${token}`,
      };
      const reader = { email: `reader-${token.length}@example.com` };
      const wholeRaw = (await transporter.sendMail(message(personalMail(mail, reader, readerLinks, site), from))).message as Buffer;
      const whole = await PostalMime.parse(wholeRaw);
      const raw = (await transporter.sendMail(message(personalEncodedMail(encoded, reader, readerLinks, site), from))).message as Buffer;
      // No line longer than in the copy nodemailer encodes whole (its body lines stop at 76 characters).
      const longest = (bytes: Buffer) =>
        Math.max(
          ...bytes
            .toString('latin1')
            .split(/\r?\n/)
            .map((line) => line.length),
        );
      expect(longest(raw)).toBeLessThanOrEqual(longest(wholeRaw));
      const parsed = await PostalMime.parse(raw);
      expect(parsed.text).toBe(whole.text);
      expect(parsed.html).toBe(whole.html);
      expect(parsed.text).toContain(`Unsubscribe: ${readerLinks.page}`);
      expect(parsed.subject).toBe(whole.subject);
      expect(parsed.headers.filter((header) => /^(list-|message-id|to$)/.test(header.key))).toEqual(
        whole.headers.filter((header) => /^(list-|message-id|to$)/.test(header.key)),
      );
      expect(parsed.attachments.map((part) => [part.contentId, Buffer.from(part.content as ArrayBuffer).length])).toEqual(
        whole.attachments.map((part) => [part.contentId, Buffer.from(part.content as ArrayBuffer).length]),
      );
    }
  });
});
