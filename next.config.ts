import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // Lets a test harness build a fixture site beside the real one.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  poweredByHeader: false,
  reactStrictMode: true,
  // Inlined at build: "published" means "not in the future when the site was built", in every route.
  env: { LECTERN_BUILD_TIME: process.env.LECTERN_BUILD_TIME || String(Date.now()) },
  typedRoutes: false,
};

export default nextConfig;
