import type { Metadata, Viewport } from 'next';
import Link from 'next/link';
import { NewsletterForm } from '@/components/newsletter-form';
import { SearchForm } from '@/components/search-form';
import type { ReactNode } from 'react';
import { site } from '@/lib/content';
import { absoluteUrl } from '@/lib/runtime/site';
import { LICENSE_PATH, reuseRule, RSL_TYPE, usageRule } from '@/lib/agents/terms';
import { pageMetadata } from '@/lib/seo';
import { THEME_SCRIPT } from '@/lib/theme';
import { ThemeSwitch } from '@/components/theme-switch';
import './globals.css';
import './code-theme.css';
import { settings } from '@/lib/settings';
import { fediverseAccount } from '@/lib/fediverse/paths';

/** The site's sections, in the header of every page (the feed is a plain link: it is not a page). */
const NAVIGATION = [
  ['/blog', 'Blog'],
  ['/apps', 'Apps'],
  ['/pricing', 'Pricing'],
  ['/support', 'Support'],
] as const;

export function generateMetadata(): Metadata {
  const { name, summary } = site();
  const { site: where, fediverse } = settings();
  return {
    ...pageMetadata({ title: name, description: summary, path: '/' }),
    metadataBase: new URL(where.url),
    title: { default: name, template: `%s · ${name}` },
    // On the fediverse: Mastodon's link previews of any page name the site's account as its creator.
    ...(fediverse.handle ? { other: { 'fediverse:creator': fediverseAccount(fediverse.handle, where.url) } } : {}),
  };
}

export const viewport: Viewport = {
  width: 'device-width',
  initialScale: 1,
  themeColor: [
    { media: '(prefers-color-scheme: light)', color: '#fbfaf7' },
    { media: '(prefers-color-scheme: dark)', color: '#16171b' },
  ],
};

export default function RootLayout({ children }: { children: ReactNode }) {
  const { name, author, language, links } = site();
  return (
    // The theme script sets data-theme on <html> before React hydrates it.
    <html lang={language} suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
        {/* No first paint before the whole header is parsed: a half-parsed menu or theme switch would shift once the rest arrives. */}
        <link rel="expect" href="#main" blocking="render" />
        {/* The site's terms for machines (RSL 1.0): lib/agents/terms.ts. */}
        <link rel="license" type={RSL_TYPE} href={absoluteUrl(LICENSE_PATH)} />
        {/* The author's profiles elsewhere (content/site.yaml `links`): rel="me" is how Mastodon verifies a profile's link to this site. */}
        {links?.map((link) => (
          <link key={link.url} rel="me" href={link.url} />
        ))}
      </head>
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <header className="site-header">
          <Link href="/" className="site-name">
            {name}
          </Link>
          <nav aria-label="Main">
            <ul>
              {NAVIGATION.map(([href, label]) => (
                <li key={href}>
                  <Link href={href}>{label}</Link>
                </li>
              ))}
              <li>
                {/* eslint-disable-next-line @next/next/no-html-link-for-pages -- a feed, not a page (the rule takes app/api/[...path] for one) */}
                <a href="/api/rss">RSS</a>
              </li>
            </ul>
          </nav>
          <SearchForm id="site-search-q" label="Search the site" className="site-search" />
          <ThemeSwitch />
        </header>
        <main id="main">{children}</main>
        <footer className="site-footer">
          <NewsletterForm />
          <p>
            © {author.name}. {reuseRule()} {usageRule()}
          </p>
          <p>
            {/* eslint-disable-next-line @next/next/no-html-link-for-pages -- files for programs, not pages (the rule takes app/api/[...path] for one) */}
            For agents: <a href="/llms.txt">llms.txt</a> · <a href="/api/blog">JSON</a> · <a href="/api/rss">RSS</a> · <Link href="/docs/api">API</Link> ·{' '}
            <a href={LICENSE_PATH} rel="license" type={RSL_TYPE}>
              Licence (RSL)
            </a>
          </p>
        </footer>
      </body>
    </html>
  );
}
