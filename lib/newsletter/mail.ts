import { convert } from 'html-to-text';
import juice from 'juice';
import { kept } from '../content/build-cache';
import { CODE_BACKGROUNDS } from '../content/code-theme';
import { renderMarkdown } from '../content/render';
import type { Site } from '../content/schema';
import { escapeHtml } from '../http/html';
import { UNSUBSCRIBE_PLACEHOLDER, type MailSite, type NewsletterMail } from './copies';
import { svgImagesToPng } from './mail-images';

export {
  encodeMail,
  newsletterListId,
  newsletterMessageId,
  personalEncodedMail,
  personalMail,
  type EncodedMail,
  type MailSite,
  type NewsletterMail,
} from './copies';

/** What the mail is made from: a published post and the site. */
export type MailPost = { slug: string; title: string; description: string; body: string; url: string; markdownUrl: string; dateMillis: number };

/** The mail's view of site.yaml, at the site's address `url`. */
export function mailSiteOf(site: Site, url: string): MailSite {
  return {
    name: site.name,
    language: site.language,
    url,
    ...(site.author.email ? { replyTo: { name: site.author.name, address: site.author.email } } : {}),
    ...(site.postalAddress ? { postalAddress: site.postalAddress } : {}),
  };
}

/** The author's welcome mail (content/newsletter-welcome.md): its subject and markdown body. */
export type WelcomeContent = { subject: string; body: string };

/*
 * Mail clients keep little of a stylesheet: juice copies each rule into the
 * elements' style attributes. Only the dark-mode rules stay in a <style>
 * (clients that honour prefers-color-scheme read it; the others show the light
 * colours, which read on their own). Code keeps one dark background in both
 * modes, so it reads whatever a client does to the colours around it.
 */
const STYLES = `
body { margin: 0; padding: 0; background: #ffffff; color: #1d1e22; font-family: -apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; font-size: 16px; line-height: 1.6; }
.wrapper { max-width: 36rem; margin: 0 auto; padding: 24px 16px; }
.site { font-size: 14px; margin: 0 0 16px; }
.site a { color: #5b5e66; text-decoration: none; }
h1 { font-size: 26px; line-height: 1.25; margin: 0 0 8px; }
h1 a { color: #1d1e22; text-decoration: none; }
h2 { font-size: 21px; line-height: 1.3; margin: 28px 0 8px; }
h3 { font-size: 18px; margin: 24px 0 8px; }
.heading-link { color: inherit; text-decoration: none; }
.meta { font-size: 14px; color: #5b5e66; margin: 0 0 24px; }
a { color: #1d5fbf; }
img { max-width: 100%; height: auto; border: 0; }
pre { background: ${CODE_BACKGROUNDS.dark}; color: #e8e6e1; padding: 12px 14px; border-radius: 6px; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 14px; line-height: 1.5; white-space: pre-wrap; word-wrap: break-word; overflow-x: auto; }
pre code { background: transparent; color: #e8e6e1; padding: 0; }
code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 14px; background: ${CODE_BACKGROUNDS.light}; color: #1d1e22; padding: 1px 4px; border-radius: 4px; }
blockquote { margin: 16px 0; padding: 0 0 0 14px; border-left: 3px solid #dedbd2; color: #45474d; }
table { border-collapse: collapse; }
th, td { border: 1px solid #dedbd2; padding: 4px 8px; }
hr { border: none; border-top: 1px solid #dedbd2; margin: 32px 0 16px; }
.footer { font-size: 13px; color: #5b5e66; }
.footer a { color: #5b5e66; }
`;

const DARK_STYLES = `
@media (prefers-color-scheme: dark) {
  body, .wrapper { background: #16171b !important; color: #e8e6e1 !important; }
  h1 a, .heading-link { color: #e8e6e1 !important; }
  a { color: #8ab4f8 !important; }
  .meta, .site a, .footer, .footer a { color: #a9abb2 !important; }
  code { background: #2a2c33 !important; color: #e8e6e1 !important; }
  blockquote { color: #c6c4bf !important; }
}`;

const textOptions = {
  wordwrap: 78,
  selectors: [
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    { selector: 'a.heading-link', format: 'inline' },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'h4', options: { uppercase: false } },
    { selector: 'table', format: 'dataTable' },
  ],
};

const dateLine = (millis: number, language: string) => new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone: 'UTC' }).format(millis);

/**
 * One mail page around `body` (HTML, every URL absolute): the site's name, the heading, an optional
 * line under it, and the footer (why the reader gets it, the unsubscribe placeholder, the postal
 * address when the site gives one); the same parts again in plain text.
 */
function mailPage(parts: { title: string; url: string; meta?: { html: string; text: string[] }; body: string }, site: MailSite) {
  const postal = site.postalAddress?.trim();
  // The HTML part shows the site's SVG images as PNG sent with the message; the text part links them as they are.
  const { html: body, images } = svgImagesToPng(parts.body, site.url);
  const page = `<!DOCTYPE html>
<html lang="${escapeHtml(site.language)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark">
<title>${escapeHtml(parts.title)}</title><style>${STYLES}</style><style>${DARK_STYLES}</style></head>
<body><div class="wrapper">
<p class="site"><a href="${escapeHtml(site.url)}">${escapeHtml(site.name)}</a></p>
<h1><a href="${escapeHtml(parts.url)}">${escapeHtml(parts.title)}</a></h1>
${parts.meta ? `<p class="meta">${parts.meta.html}</p>\n` : ''}<div class="post">${body}</div>
<hr>
<p class="footer">You receive this because you subscribed to <a href="${escapeHtml(site.url)}">${escapeHtml(site.name)}</a>. <a href="${UNSUBSCRIBE_PLACEHOLDER}">Unsubscribe</a> (opens a page with one button).</p>
${postal ? `<p class="footer">${escapeHtml(postal).replace(/\r?\n/g, '<br>')}</p>\n` : ''}</div></body></html>`;
  const html = juice(page, { preserveMediaQueries: true, removeStyleTags: true, applyWidthAttributes: true, applyHeightAttributes: false });
  const text = [
    parts.title,
    ...(parts.meta ? parts.meta.text.slice(0, 1) : []),
    convert(parts.body, textOptions),
    '--',
    ...(parts.meta ? parts.meta.text.slice(1) : []),
    `You receive this because you subscribed to ${site.name} (${site.url}).`,
    `Unsubscribe: ${UNSUBSCRIBE_PLACEHOLDER}`,
    ...(postal ? [postal] : []),
  ].join('\n\n');
  return { html, text, ...(images.length > 0 ? { images } : {}) };
}

/**
 * The post's mail, made once per send from the same rendered HTML as its page
 * (every URL absolute): an HTML part for mail clients and a plain-text part,
 * each with links to the post and to its markdown.
 */
export async function renderNewsletterMail(post: MailPost, site: MailSite): Promise<NewsletterMail> {
  // Kept in the build's cache like a post's render (lib/content/kept.ts): a post is made into mail
  // before its time (lib/publishing/render-ahead.ts), off the thread that answers readers.
  const { slug, title, description, body, url, markdownUrl, dateMillis } = post;
  const key = JSON.stringify([{ slug, title, description, body, url, markdownUrl, dateMillis }, site]);
  const made = await kept('newsletter-mail', key, async () => Buffer.from(JSON.stringify(await newsletterMail(post, site))));
  return JSON.parse(made.toString('utf8')) as NewsletterMail;
}

async function newsletterMail(post: MailPost, site: MailSite): Promise<NewsletterMail> {
  const { html: body } = await renderMarkdown(post.body, { baseUrl: post.url });
  const date = dateLine(post.dateMillis, site.language);
  const meta = {
    html: `${escapeHtml(date)} · <a href="${escapeHtml(post.url)}">Read it on the site</a> · <a href="${escapeHtml(post.markdownUrl)}">Markdown</a>`,
    text: [date, `Read it on the site: ${post.url}`, `Markdown: ${post.markdownUrl}`],
  };
  return { slug: post.slug, subject: post.title, ...mailPage({ title: post.title, url: post.url, meta, body }, site) };
}

/**
 * The welcome mail a newly confirmed reader gets when the author wrote one
 * (content/newsletter-welcome.md): its subject as the heading, its body as a
 * post's is rendered, and the newsletter's footer.
 */
export async function renderWelcomeMail(welcome: WelcomeContent, site: MailSite): Promise<NewsletterMail> {
  const { html: body } = await renderMarkdown(welcome.body, { baseUrl: site.url });
  return { slug: 'welcome', subject: welcome.subject, ...mailPage({ title: welcome.subject, url: site.url, body }, site) };
}
