import type { Metadata, Viewport } from 'next';
import Link from 'next/link';
import { NewsletterForm } from '@/components/newsletter-form';
import { SearchForm } from '@/components/search-form';
import type { ReactNode } from 'react';
import { config } from '@/lib/config';
import { site } from '@/lib/content';
import { pageMetadata } from '@/lib/seo';
import { THEME_SCRIPT } from '@/lib/theme';
import { ThemeSwitch } from '@/components/theme-switch';
import './globals.css';
import './code-theme.css';

export function generateMetadata(): Metadata {
  const { name, summary } = site();
  return {
    ...pageMetadata({ title: name, description: summary, path: '/' }),
    metadataBase: new URL(config().siteUrl),
    title: { default: name, template: `%s · ${name}` },
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
  const { name, author, reuse, language } = site();
  return (
    // The theme script sets data-theme on <html> before React hydrates it.
    <html lang={language} suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
        {/* No first paint before the whole header is parsed: a half-parsed menu or theme switch would shift once the rest arrives. */}
        <link rel="expect" href="#main" blocking="render" />
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
              <li>
                <Link href="/blog">Blog</Link>
              </li>
              <li>
                <Link href="/apps">Apps</Link>
              </li>
              <li>
                <Link href="/pricing">Pricing</Link>
              </li>
              <li>
                <Link href="/support">Support</Link>
              </li>
              <li>
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
            © {author.name}. {reuse}
          </p>
          <p>
            For agents: <a href="/llms.txt">llms.txt</a> · <a href="/api/blog">JSON</a> · <a href="/api/rss">RSS</a> · <Link href="/docs/api">API</Link>
          </p>
        </footer>
      </body>
    </html>
  );
}
