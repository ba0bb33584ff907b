import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import type { NextConfig } from 'next';
import { contentFingerprint } from './lib/content/fingerprint';
import { PLATFORM_FEDIVERSE_ROUTE } from './lib/fediverse/paths';
import { FORM_BODY_LIMIT } from './lib/routes/manifest';
import { settingsOrExit } from './lib/settings';

// The same settings lectern's server and the built site read (lib/settings.ts): a bad value stops the build, every one named.
const settings = settingsOrExit();

/**
 * What a rendered post, card or newsletter mail depends on besides its text: the renderer's code
 * (lib/content), the card's component, the newsletter's mail page, the packages they run (the
 * lockfile) and the images the renderer measures (public/). Part of every key of the build cache (lib/content/build-cache.ts), so a
 * change to any of them renders every post and draws every card again.
 */
function rendererVersion(): string {
  const hash = createHash('sha256');
  const folder = path.join(process.cwd(), 'lib', 'content');
  for (const name of fs.readdirSync(folder).sort()) hash.update(name).update(fs.readFileSync(path.join(folder, name)));
  for (const file of [
    'components/og-card.tsx',
    'components/og-image.ts',
    'lib/newsletter/mail.ts',
    'lib/newsletter/mail-images.ts',
    'lib/http/html.ts',
    'package-lock.json',
    'package.json',
  ]) {
    if (fs.existsSync(file)) hash.update(fs.readFileSync(file));
  }
  hash.update(contentFingerprint(path.join(process.cwd(), 'public')));
  return hash.digest('hex').slice(0, 32);
}

const nextConfig: NextConfig = {
  // Lets a test harness build a fixture site beside the real one.
  distDir: settings.build.distDir,
  poweredByHeader: false,
  reactStrictMode: true,
  // Inlined at build: the one moment every build worker judges "published" by (a running site asks its clock).
  env: {
    LECTERN_BUILD_TIME: String(settings.build.time),
    LECTERN_RENDERER_VERSION: rendererVersion(),
  },
  typedRoutes: false,
  // Loaded from node_modules at run time instead of bundled: compiling them was most of every
  // build's fixed compile time (BENCHMARKS.md, Build).
  // @resvg/resvg-js is a native module (the newsletter's SVG to PNG): it cannot be bundled at all.
  serverExternalPackages: [
    '@modelcontextprotocol/sdk',
    'stripe',
    'nodemailer',
    'juice',
    'html-to-text',
    'redis',
    '@upstash/redis',
    'feed',
    'yaml',
    'zod',
    '@resvg/resvg-js',
    // The Open Graph cards' layout (components/og-image.ts): it loads its WebAssembly itself.
    'satori',
    '@fedify/fedify',
  ],
  // `npm run typecheck` (and `npm test`, which runs it) checks the types; a build does not check
  // them again (10 s of every build: BENCHMARKS.md, Build).
  typescript: { ignoreBuildErrors: true },
  // One static-generation worker per CPU unless BUILD_WORKERS says otherwise: Next's default leaves
  // one CPU to the main process, which only waits while the pages are generated (BENCHMARKS.md, Build).
  // Each worker loads every post, so at 10,000 posts one worker keeps a build under 2 GiB.
  // Next buffers the body of a request that goes through proxy.ts (every URL but the write routes,
  // which read their own). lectern's server refuses bodies on URLs that read none before Next; this
  // bounds what a host without it would hold.
  // No prefetch inlining (on by default since Next 16.4): with it, a page generated at build carries
  // prefetch hints marked stale and the same page generated on its first request carries the final
  // ones, so the two differ; without it they are the same bytes (tests/contract/long-tail.test.ts),
  // and the build skips measuring the hints of every page. Client navigation still prefetches.
  experimental: {
    cpus: settings.build.workers ?? availableParallelism(),
    proxyClientMaxBodySize: FORM_BODY_LIMIT,
    prefetchInlining: false,
  },
  // lectern's server compresses what it serves from memory; Next compressing too would hide the bytes from it.
  compress: false,
  // Without lectern's server, the fediverse's inboxes are answered by its route (lib/fediverse/route.ts),
  // which reads each body up to its own limit: proxy.ts, which would buffer it, does not see them.
  // Under lectern's server Fedify answers them before Next.
  rewrites: async () => [
    { source: '/inbox', destination: `${PLATFORM_FEDIVERSE_ROUTE}/inbox` },
    { source: '/:actor(@[^/]+)/inbox', destination: `${PLATFORM_FEDIVERSE_ROUTE}/:actor/inbox` },
  ],
};

export default nextConfig;
