import type { Clock } from '../clock';
import { aheadCount } from '../content/published-set';
import { describeError } from '../log';

/** The name under which lectern's server shares the token its scheduler calls /api/publish with (lib/process-shared.ts). */
export const SCHEDULER_TOKEN = 'publish:scheduler-token';

export type Timers = { set: (run: () => void, ms: number) => unknown; clear: (timer: unknown) => void };

export type Scheduler = {
  /** Brings the site up to the clock now (posts that came due while no instance ran), then waits for the next post's time. */
  start: () => Promise<void>;
  stop: () => void;
  /** Resolves once no look at the clock and no periodic work is running (after `stop`, nothing starts again). */
  idle: () => Promise<void>;
};

/**
 * Work the scheduler starts at each look at the clock and at least every `everyMs` (the bookings'
 * reminders), beside publishing, never in its way: a look does not wait for it, and a pass still
 * running when the next look comes is not started twice. A failure is logged; the next look tries again.
 */
export type Periodic = { name: string; everyMs: number; run: (now: number) => Promise<unknown> };

export type SchedulerOptions = {
  clock: Clock;
  /** The dates of the build's posts, newest first (epoch ms). */
  dates: readonly number[];
  /**
   * Called at start and each time a post comes due, with how many posts are still ahead: makes
   * what depends on the set of live posts anew. A failure is logged and retried.
   */
  onChange: (ahead: number) => Promise<void>;
  timers?: Timers;
  log?: Pick<Console, 'warn'>;
  /** The longest a timer waits before the clock is read again (a clock set forward is noticed then). */
  maxWaitMs?: number;
  /** How long after a failed onChange it is tried again. */
  retryMs?: number;
  /**
   * Work done once, `leadMs` before the first post this instance will make live (at start when
   * that post is nearer): what makes its going live quicker. Given that post's time.
   */
  prepare?: { leadMs: number; run: (due: number) => void };
  /**
   * Work done for each post time, `leadMs` before it (at once when it is nearer), once per time:
   * what makes that post's going live cheaper. Given the time. Not within `settleMs` after a post
   * went live (its own going live has the machine then), unless the post is due within that time.
   */
  approach?: { leadMs: number; settleMs?: number; run: (due: number) => void };
  /** Work done at each look, which then comes at least every `everyMs`. */
  periodic?: readonly Periodic[];
};

export const nodeTimers: Timers = {
  set: (run, ms) => setTimeout(run, ms).unref(),
  clear: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/**
 * Publishes posts at their time: one timer, set for the next post dated ahead. Each instance
 * decides alone from its clock and the build's dates, so instances of one build agree without
 * talking to each other, and one started after a post's time makes it live at start.
 */
export function createScheduler(options: SchedulerOptions): Scheduler {
  const { clock, dates, onChange } = options;
  const timers = options.timers ?? nodeTimers;
  const log = options.log ?? console;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const retryMs = options.retryMs ?? 1_000;
  let done: number | undefined;
  let timer: unknown;
  let stopped = false;
  let prepared = options.prepare === undefined;
  /** The post time `approach` last ran for. */
  let approached: number | undefined;
  /** When the last post went live (by `clock`; not the start). */
  let wentLiveAt = -Infinity;
  const periodic = options.periodic ?? [];
  let running: Promise<void> | undefined;
  /** The periodic work's pass, while one runs: looks start it and never wait for it, so a post's time is kept whatever it costs. */
  let passing: Promise<void> | undefined;

  function arm(ms: number): void {
    if (stopped) return;
    timer = timers.set(() => void look(), Math.max(0, Math.min(ms, maxWaitMs)));
  }

  function look(): Promise<void> {
    running = check().finally(() => {
      running = undefined;
    });
    return running;
  }

  /** Starts a pass of the periodic work unless one is still running (a slow one is not doubled). */
  function pass(): void {
    if (passing || periodic.length === 0 || stopped) return;
    passing = (async () => {
      for (const work of periodic) {
        if (stopped) return;
        try {
          await work.run(clock());
        } catch (error) {
          log.warn(`scheduler: ${work.name} failed (${describeError(error)}); trying again at the next look`);
        }
      }
    })().finally(() => {
      passing = undefined;
    });
  }

  async function check(): Promise<void> {
    timer = undefined;
    const ahead = aheadCount(dates, clock());
    let failed = false;
    if (ahead !== done) {
      try {
        await onChange(ahead);
        if (done !== undefined) wentLiveAt = clock();
        done = ahead;
      } catch (error) {
        log.warn(`scheduler: publishing failed (${describeError(error)}); trying again`);
        failed = true;
      }
    }
    // The periodic work does not wait for publishing to succeed, and publishing does not wait for it.
    pass();
    if (failed) {
      arm(Math.min(retryMs, ...periodic.map((work) => work.everyMs)));
      return;
    }
    const waits = periodic.map((work) => work.everyMs);
    // The next post to come due is the oldest of those still ahead.
    const next = ahead > 0 ? dates[ahead - 1] : undefined;
    if (next !== undefined) {
      if (!prepared && options.prepare && next - clock() <= options.prepare.leadMs) {
        prepared = true;
        options.prepare.run(next);
      }
      waits.push(prepared || !options.prepare ? next - clock() : next - options.prepare.leadMs - clock());
      if (options.approach && approached !== next) {
        const settled = wentLiveAt + (options.approach.settleMs ?? 0);
        // A post due before the settling ends is approached as if none had gone live.
        const from = next - options.approach.leadMs < settled && next > settled ? settled : next - options.approach.leadMs;
        if (clock() >= from) {
          approached = next;
          options.approach.run(next);
        } else {
          waits.push(from - clock());
        }
      }
    }
    if (waits.length > 0) arm(Math.min(...waits));
  }

  return {
    start: () => look(),
    stop: () => {
      stopped = true;
      if (timer !== undefined) timers.clear(timer);
      timer = undefined;
    },
    idle: async () => {
      while (running || passing) await (running ?? passing);
    },
  };
}
