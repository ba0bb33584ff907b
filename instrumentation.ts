import { envOrExit, nodeEnv } from './lib/env';

/**
 * Runs once when the server starts, under lectern's server and under any host
 * that runs Next.js itself: a bad setting, or settings a platform host cannot
 * keep, stop the start with every problem named; then mail left in the outbox
 * by a previous run goes out, and the newsletter starts.
 */
export async function register() {
  const settings = envOrExit();
  if (settings.NEXT_RUNTIME !== 'nodejs' || settings.NEXT_PHASE === 'phase-production-build') return;
  const { platformProblems } = await import('./lib/deploy');
  const problems = platformProblems();
  if (problems.length > 0) {
    console.error(`PLATFORM_MODE is set, but:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    process.exit(1);
  }
  // The store opens now (a store that cannot open fails the start, not a reader's request), and
  // the mail worker starts on it.
  const { services } = await import('./lib/services');
  void services().store;
  void services().mailWorker;
  // A platform keeps no process running between requests to look for new posts; in development a
  // post being written is published on the author's machine, which must not mail it to anyone.
  if (!settings.PLATFORM_MODE && nodeEnv() !== 'development') services().newsletter.start();
}
