import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, describe, expect, it } from 'vitest';
import { loadContent } from '@/lib/content/load';
import { personalMail, renderNewsletterMail } from '@/lib/newsletter/mail';
import { mailFrom, message } from '@/lib/services/mail/transport';
import { parseSettings } from '@/lib/settings';
import { ROOT } from '../../support/site';

/**
 * Debian's SpamAssassin (`spamassassin -L -t`: local tests only, no network) on the newsletter mail
 * of every starter post in content/, as lib/newsletter/mail.ts renders it and nodemailer composes it.
 * No rule may fire on lectern's own markup. The rules allowed are those that come from the test
 * itself, not from the mail's making:
 */
const NOT_FROM_MARKUP: Record<string, string> = {
  // The message is scored straight from the composer: it never crossed a mail server, so it has no
  // Received headers. A real receiver always sees some.
  NO_RELAYS: 'no Received header: never relayed, as every message a receiver scores is',
  NO_RECEIVED: 'no Received header: never relayed, as every message a receiver scores is',
  // Any mail with an HTML part (0.001 points, informational): a newsletter has one by design,
  // next to its text part; what the HTML holds is what the other rules judge.
  HTML_MESSAGE: 'an HTML part at all, whatever its markup',
};

const SITE_URL = 'https://blog.example.com';
const TOKEN = 'Tokentokentokentokentokentoken01';
const settings = parseSettings({ SITE_URL, SMTP_URL: 'smtp://127.0.0.1:25' });
const content = loadContent(path.join(ROOT, 'content'));
const site = { name: content.site.name, language: content.site.language, url: `${SITE_URL}/` };
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-spamassassin-'));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

/** The rules SpamAssassin's report lists (name → points), and the total score. */
function score(eml: Buffer): { total: number; rules: Record<string, number>; report: string } {
  const report = execFileSync(
    fs.existsSync('/usr/bin/spamassassin') ? '/usr/bin/spamassassin' : 'spamassassin',
    // No Bayes: its score depends on what this machine's SpamAssassin learned before, not on the mail.
    ['-L', '-t', '-p', path.join(home, 'user_prefs'), '--cf=use_bayes 0', '--cf=bayes_auto_learn 0'],
    { input: eml, env: { ...process.env, HOME: home }, maxBuffer: 16 * 1024 * 1024 },
  ).toString();
  const details = report.slice(report.lastIndexOf('Content analysis details:'));
  const total = Number(/Content analysis details:\s*\((-?[\d.]+) points/.exec(details)?.[1]);
  const rules: Record<string, number> = {};
  for (const match of details.matchAll(/^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s/gm)) rules[match[2] ?? ''] = Number(match[1]);
  return { total, rules, report: details };
}

describe("SpamAssassin on each starter post's newsletter mail", () => {
  const posts = content.posts.filter((post) => post.newsletter);
  it('has starter posts to check', () => {
    expect(posts.length).toBeGreaterThan(5);
  });

  it.each(posts.map((post) => [post.slug, post] as const))('%s: no rule fires on lectern’s markup', async (_slug, post) => {
    const mail = personalMail(
      await renderNewsletterMail({ ...post, url: `${SITE_URL}/blog/${post.slug}`, markdownUrl: `${SITE_URL}/blog/${post.slug}.md` }, site),
      { email: 'reader@example.org' },
      // The links a send makes (lib/subscribers/links.ts), on the test's site address.
      { page: `${SITE_URL}/subscribe/unsubscribe?token=${TOKEN}`, oneClick: `${SITE_URL}/api/subscribe/unsubscribe?token=${TOKEN}` },
      site,
    );
    const eml = await new MailComposer(message(mail, mailFrom(settings, site.name))).compile().build();
    const { total, rules, report } = score(eml);
    console.log(
      `spamassassin -L -t: ${post.slug}: ${total} points (${
        Object.entries(rules)
          .map(([rule, points]) => `${rule} ${points}`)
          .join(', ') || 'no rule'
      })`,
    );
    expect(Number.isFinite(total), report).toBe(true);
    const fromMarkup = Object.keys(rules).filter((rule) => !(rule in NOT_FROM_MARKUP));
    expect(fromMarkup, report).toEqual([]);
  });
});
