'use client';

import './globals.css';

/**
 * Shown when the root layout itself fails. Unlike Next's built-in page it uses
 * no inline styles, so it renders under the site's Content-Security-Policy.
 */
export default function GlobalError({ retry }: { error: unknown; retry?: () => void }) {
  return (
    <html lang="en">
      <body>
        <title>Something went wrong</title>
        <main id="main">
          <h1>Something went wrong</h1>
          <p>The page could not be shown. Try again in a moment.</p>
          <p>
            {retry && (
              <button type="button" className="button" onClick={() => retry()}>
                Try again
              </button>
            )}{' '}
            {/* A full page load: the app shell itself failed, so client navigation cannot be trusted. */}
            {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
            <a href="/">Go to the home page</a>
          </p>
        </main>
      </body>
    </html>
  );
}
