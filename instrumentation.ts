/**
 * Next.js calls `register` once when a server starts. It compiles this file for the Edge runtime
 * too, where lectern runs nothing: the Node.js work is in instrumentation-node.ts, imported only
 * when NEXT_RUNTIME is nodejs. Next's documented pattern, and the reason this one place reads
 * process.env itself: Next replaces that literal at build, so the Edge bundle drops the import
 * and everything it would compile (a newcomer's first build prints no warning about Node.js APIs).
 */
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') await (await import('./instrumentation-node')).registerNode();
}
