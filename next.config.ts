import { availableParallelism } from 'node:os';
import type { NextConfig } from 'next';
import { FORM_BODY_LIMIT } from './lib/http/body';

const nextConfig: NextConfig = {
  // Lets a test harness build a fixture site beside the real one.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  poweredByHeader: false,
  reactStrictMode: true,
  // Inlined at build: "published" means "not in the future when the site was built", in every route.
  env: { LECTERN_BUILD_TIME: process.env.LECTERN_BUILD_TIME || String(Date.now()) },
  typedRoutes: false,
  // One static-generation worker per CPU: Next's default leaves one CPU to the main process, which
  // only waits while the pages are generated (BENCHMARKS.md, Build).
  // Next buffers the body of a request that goes through proxy.ts (every URL but the write routes,
  // which read their own). lectern's server refuses bodies on URLs that read none before Next; this
  // bounds what a host without it would hold.
  experimental: { cpus: availableParallelism(), proxyClientMaxBodySize: FORM_BODY_LIMIT },
  // lectern's server compresses what it serves from memory; Next compressing too would hide the bytes from it.
  compress: false,
};

export default nextConfig;
