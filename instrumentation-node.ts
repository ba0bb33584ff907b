import { prepareSearchIndex, searchesInThread } from './lib/search/site';
import { findShared, SERVER_RUNTIME } from './lib/process-shared';
import { nextRuntime } from './lib/runtime';
import { nodeEnv, platformProblems, settingsOrExit } from './lib/settings';

/**
 * instrumentation.ts's work in Node.js, once when the server starts, under lectern's server and
 * under any host that runs Next.js itself: a bad setting, or settings a platform host cannot
 * keep, stop the start with every problem named; then, where Next runs without lectern's server,
 * the runtime starts (lib/runtime: the store opens, so a store that cannot open fails the start,
 * not a reader's request, and mail left in the outbox by a previous run goes out), and the search
 * index is built. Under lectern's server the runtime is server.ts's, which starts and stops it.
 */
export async function registerNode() {
  const settings = settingsOrExit();
  if (settings.build.running) return;
  const problems = platformProblems(settings);
  if (problems.length > 0) {
    console.error(`PLATFORM_MODE is set, but:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    process.exit(1);
  }
  // A platform keeps no process running between requests to look for new posts; in development a
  // post being written is published on the author's machine, which must not mail it to anyone.
  if (!findShared(SERVER_RUNTIME)) {
    const runtime = nextRuntime({ newsletter: !settings.deployment.platform && nodeEnv() !== 'development' });
    await runtime.start();
    // Next gives instrumentation no hook for its own stop: at the signal Next stops taking requests and
    // exits once those in flight are answered; the runtime stops beside it, the newsletter and the mail
    // worker starting no new message from the signal on (what is cut short by Next's exit is sent again
    // by the next run, README "Stopping").
    for (const signal of ['SIGTERM', 'SIGINT'] as const)
      process.once(signal, () => {
        runtime.quiesce();
        void runtime.stop();
      });
  }
  // The search index is built now, so a reader's search never waits for it (not in development,
  // where the content changes under the author's hands, nor under lectern's server, whose search
  // thread holds the process's one index and runs every search).
  if (nodeEnv() !== 'development' && !searchesInThread()) prepareSearchIndex();
}
