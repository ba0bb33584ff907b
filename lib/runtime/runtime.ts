import { describeError } from '../log';

/**
 * A long-lived part of the process (the store, the mail worker, the newsletter, the readers of
 * bounces, the search thread, the scheduler, the prewarm): made without starting anything, then
 * started and stopped by the runtime that holds it.
 */
export type Part = {
  readonly name: string;
  /** Starts the part; resolves once it is ready for what starts after it. */
  start(): void | Promise<void>;
  /** The first step of a shutdown: starts no new work (what is under way goes on). */
  quiesce?(): void;
  /** Stops it: timers cleared, connections and threads closed, work in hand finished or given back. */
  stop(): void | Promise<void>;
};

/**
 * The parts of a process, started in their order and stopped in the reverse one. `start` is
 * idempotent (a second call waits for the first); `stop` stops only the parts that started, each
 * once, and goes on past one that fails to stop (logged).
 */
export type Runtime = {
  /** The parts' names, in the order they start. */
  readonly parts: readonly string[];
  start(): Promise<void>;
  quiesce(): void;
  stop(): Promise<void>;
};

export function createRuntime(parts: readonly Part[], log: Pick<Console, 'warn'> = console): Runtime {
  const started: Part[] = [];
  let starting: Promise<void> | undefined;
  let stopping: Promise<void> | undefined;

  async function startAll(): Promise<void> {
    for (const part of parts) {
      if (stopping) return;
      try {
        await part.start();
      } catch (error) {
        // A part that cannot start stops the start: what started before it is stopped again, in reverse.
        await stopAll();
        throw new Error(`${part.name} could not start: ${describeError(error)}`, { cause: error });
      }
      started.push(part);
    }
  }

  async function stopAll(): Promise<void> {
    for (const part of started.splice(0).reverse()) {
      try {
        await part.stop();
      } catch (error) {
        log.warn(`${part.name} did not stop cleanly (${describeError(error)})`);
      }
    }
  }

  return {
    parts: parts.map((part) => part.name),
    start: () => (starting ??= startAll()),
    quiesce() {
      for (const part of started) part.quiesce?.();
    },
    stop() {
      stopping ??= (async () => {
        // A start under way finishes its part first; the parts after it do not start.
        await starting?.catch(() => undefined);
        await stopAll();
      })();
      return stopping;
    },
  };
}
