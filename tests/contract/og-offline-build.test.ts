import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createElement } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OgCard } from '@/components/og-card';
import { renderCard } from '@/components/og-image';
import { request } from '../support/client';
import { buildSite, FIXTURE_CONTENT, freePort, ROOT, startSite } from '../support/site';

const TITLE = 'Shipped ✓ 🚀 👩‍💻 שלום';

/**
 * A post titled with a symbol, emoji (one a ZWJ sequence) and Hebrew, built with every outbound
 * connection and name lookup refused (tests/support/refuse-outbound.mjs, preloaded into the build
 * and its workers): the build succeeds, tries nothing outside the machine, and draws the card.
 * The build has Stripe keys, and a server started on it without them does not sell.
 */
describe('a build of a post whose title has glyphs beyond Latin, with no network', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lectern-og-'));
  const contentDir = path.join(dir, 'content');
  const refused = path.join(dir, 'refused.log');
  const distDir = '.next-og';
  let built: unknown;
  let port: number;

  beforeAll(async () => {
    fs.cpSync(FIXTURE_CONTENT, contentDir, { recursive: true });
    fs.writeFileSync(
      path.join(contentDir, 'posts/glyphs-post.md'),
      `---\ntitle: ${TITLE}\ndescription: A title with a check mark, emoji and Hebrew.\ndate: 2025-06-01\ntags: [testing]\n---\nText.\n`,
    );
    fs.writeFileSync(refused, '');
    port = await freePort();
    built = await buildSite({
      contentDir,
      distDir,
      siteUrl: `http://127.0.0.1:${port}`,
      extraEnv: {
        NODE_OPTIONS: `--import ${path.join(ROOT, 'tests/support/refuse-outbound.mjs')}`,
        REFUSED_OUTBOUND_LOG: refused,
        STRIPE_SECRET_KEY: 'sk_test_at_build_only',
        STRIPE_API_URL: 'http://127.0.0.1:9',
      },
    }).then(
      () => true,
      (error: unknown) => error,
    );
  }, 300_000);

  afterAll(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(path.join(ROOT, distDir), { recursive: true, force: true });
  });

  it('succeeds and tries no connection or lookup outside the machine', () => {
    expect(built).toBe(true);
    expect(fs.readFileSync(refused, 'utf8')).toBe('');
  });

  it("draws the post's card at build, the card the renderer draws of that title", async () => {
    const file = path.join(ROOT, distDir, 'server/app/blog/glyphs-post/opengraph-image.body');
    expect(fs.existsSync(file)).toBe(true);
    const png = fs.readFileSync(file);
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    const card = (title: string) => renderCard(createElement(OgCard, { kicker: 'Fixture & Co', title, footer: 'Test Author · June 1, 2025' }));
    expect(png.equals(await card(TITLE))).toBe(true);
    // Not the card with every glyph beyond Latin as the empty box a glyph without a font is drawn as.
    expect(png.equals(await card('Shipped \ue000 \ue000 \ue000 \ue000\ue000\ue000\ue000'))).toBe(false);
  });

  it('serves a pricing page without buy buttons when the server runs without the Stripe keys the build had', async () => {
    const site = await startSite({ contentDir, distDir, siteUrl: `http://127.0.0.1:${port}`, port });
    try {
      const page = await request(site.baseUrl, '/pricing', { headers: { Accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.body).toContain('payments are not configured');
      expect(page.body).not.toContain('action="/api/payments/');
    } finally {
      await site.stop();
    }
  });
});
