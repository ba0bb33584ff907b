/** Runs once when the server starts: mail left in the outbox by a previous run goes out. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs' || process.env.NEXT_PHASE === 'phase-production-build') return;
  const { mailWorker } = await import('./lib/services/mail/worker');
  mailWorker();
}
