import { describe, expect, it, vi } from 'vitest';
import { createScheduler } from '@/lib/publishing/scheduler';
import { fakeTime } from '../../support/fake-time';

// Dates newest first, as the build records them: two posts ahead of 1000, two behind it.
const DATES = [5_000, 2_000, 900, 100];

describe('the scheduler', () => {
  it('at start makes the site match the clock, then changes it at each post’s time, never before', async () => {
    const time = fakeTime(1_000);
    const changes: { at: number; ahead: number }[] = [];
    const scheduler = createScheduler({
      clock: time.clock,
      dates: DATES,
      timers: time.timers,
      onChange: async (ahead) => void changes.push({ at: time.clock(), ahead }),
    });
    await scheduler.start();
    expect(changes).toEqual([{ at: 1_000, ahead: 2 }]);
    await time.advance(1_999);
    expect(changes).toHaveLength(1);
    await time.advance(2_000);
    expect(changes).toEqual([
      { at: 1_000, ahead: 2 },
      { at: 2_000, ahead: 1 },
    ]);
    await time.advance(10_000);
    expect(changes.at(-1)).toEqual({ at: 5_000, ahead: 0 });
    // Nothing is ahead any more: no timer is left.
    expect(time.pending()).toEqual([]);
  });

  it('started after a post’s time makes it live at start', async () => {
    const time = fakeTime(3_000);
    const changes: number[] = [];
    await createScheduler({ clock: time.clock, dates: DATES, timers: time.timers, onChange: async (ahead) => void changes.push(ahead) }).start();
    expect(changes).toEqual([1]);
  });

  it('reads the clock again at least every maxWaitMs (a clock set forward), and a timer that fires early changes nothing', async () => {
    const time = fakeTime(1_000);
    const changes: number[] = [];
    await createScheduler({
      clock: time.clock,
      dates: [100_000],
      timers: time.timers,
      maxWaitMs: 10_000,
      onChange: async (ahead) => void changes.push(ahead),
    }).start();
    expect(time.pending()).toEqual([11_000]);
    await time.advance(11_000);
    expect(changes).toEqual([1]);
    expect(time.pending()).toEqual([21_000]);
  });

  it('tries a failed change again, and counts it done only once it succeeds', async () => {
    const time = fakeTime(1_000);
    const warnings: string[] = [];
    let failures = 2;
    const changes: number[] = [];
    const scheduler = createScheduler({
      clock: time.clock,
      dates: [1_500],
      timers: time.timers,
      retryMs: 100,
      log: { warn: (line: string) => void warnings.push(line) },
      onChange: async (ahead) => {
        if (ahead === 0 && failures-- > 0) throw new Error('store down');
        changes.push(ahead);
      },
    });
    await scheduler.start();
    await time.advance(1_500);
    expect(changes).toEqual([1]);
    await time.advance(1_700);
    expect(changes).toEqual([1, 0]);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('store down');
  });

  it('does nothing after stop', async () => {
    const time = fakeTime(1_000);
    const changes: number[] = [];
    const scheduler = createScheduler({ clock: time.clock, dates: [2_000], timers: time.timers, onChange: async (ahead) => void changes.push(ahead) });
    await scheduler.start();
    scheduler.stop();
    await time.advance(5_000);
    expect(changes).toEqual([1]);
    expect(time.pending()).toEqual([]);
  });
});

describe('the scheduler’s approach to each post', () => {
  it('runs once for each post time, its lead before it (at once when nearer), never after it', async () => {
    const time = fakeTime(1_000);
    const approached: { at: number; due: number }[] = [];
    const scheduler = createScheduler({
      clock: time.clock,
      // Two posts share the time 9,000; 5,500 is nearer to 5,000 than the lead.
      dates: [9_000, 9_000, 5_500, 5_000, 100],
      timers: time.timers,
      onChange: async () => undefined,
      approach: { leadMs: 1_500, run: (due) => void approached.push({ at: time.clock(), due }) },
    });
    await scheduler.start();
    expect(approached).toEqual([]);
    await time.advance(3_499);
    expect(approached).toEqual([]);
    await time.advance(3_500);
    expect(approached).toEqual([{ at: 3_500, due: 5_000 }]);
    await time.advance(5_000);
    expect(approached).toEqual([
      { at: 3_500, due: 5_000 },
      { at: 5_000, due: 5_500 },
    ]);
    await time.advance(7_499);
    expect(approached).toHaveLength(2);
    await time.advance(7_500);
    expect(approached.at(-1)).toEqual({ at: 7_500, due: 9_000 });
    await time.advance(20_000);
    expect(approached).toHaveLength(3);
    expect(time.pending()).toEqual([]);
  });
  it('waits settleMs after a post went live before approaching the next, unless it is due sooner', async () => {
    const time = fakeTime(1_000);
    const approached: { at: number; due: number }[] = [];
    const scheduler = createScheduler({
      clock: time.clock,
      // 2,500 is due within the settling time after 2,000; 5,000 and 9,000 are within the lead but not that time.
      dates: [9_000, 5_000, 2_500, 2_000, 100],
      timers: time.timers,
      onChange: async () => undefined,
      approach: { leadMs: 10_000, settleMs: 1_000, run: (due) => void approached.push({ at: time.clock(), due }) },
    });
    await scheduler.start();
    // At start nothing went live yet: the first post is approached at once.
    expect(approached).toEqual([{ at: 1_000, due: 2_000 }]);
    await time.advance(2_000);
    // Due before the settling ends: approached at once.
    expect(approached.at(-1)).toEqual({ at: 2_000, due: 2_500 });
    await time.advance(3_499);
    expect(approached).toHaveLength(2);
    await time.advance(3_500);
    expect(approached.at(-1)).toEqual({ at: 3_500, due: 5_000 });
    await time.advance(5_999);
    expect(approached).toHaveLength(3);
    await time.advance(6_000);
    expect(approached.at(-1)).toEqual({ at: 6_000, due: 9_000 });
    scheduler.stop();
  });
});

describe('the scheduler’s preparation', () => {
  it('runs once, its lead before the first post it makes live, and not again before later posts', async () => {
    const time = fakeTime(1_000);
    const prepared: { at: number; due: number }[] = [];
    const scheduler = createScheduler({
      clock: time.clock,
      dates: [9_000, 5_000, 100],
      timers: time.timers,
      onChange: async () => undefined,
      prepare: { leadMs: 1_500, run: (due) => void prepared.push({ at: time.clock(), due }) },
    });
    await scheduler.start();
    expect(prepared).toEqual([]);
    await time.advance(3_499);
    expect(prepared).toEqual([]);
    await time.advance(3_500);
    expect(prepared).toEqual([{ at: 3_500, due: 5_000 }]);
    await time.advance(20_000);
    expect(prepared).toHaveLength(1);
    scheduler.stop();
  });

  it('runs at start when the first post is nearer than its lead', async () => {
    const time = fakeTime(1_000);
    const prepared: number[] = [];
    const scheduler = createScheduler({
      clock: time.clock,
      dates: [1_200, 100],
      timers: time.timers,
      onChange: async () => undefined,
      prepare: { leadMs: 1_500, run: () => void prepared.push(time.clock()) },
    });
    await scheduler.start();
    expect(prepared).toEqual([1_000]);
    scheduler.stop();
  });

  it('does not run when no post is ahead', async () => {
    const time = fakeTime(1_000);
    const run = vi.fn();
    const scheduler = createScheduler({
      clock: time.clock,
      dates: [100],
      timers: time.timers,
      onChange: async () => undefined,
      prepare: { leadMs: 1_500, run },
    });
    await scheduler.start();
    await time.advance(100_000);
    expect(run).not.toHaveBeenCalled();
  });

  it('does its periodic work at start and every everyMs, with no post ahead; a failure is logged and tried at the next look', async () => {
    const time = fakeTime(1_000);
    const runs: number[] = [];
    const warnings: string[] = [];
    let fail = true;
    const scheduler = createScheduler({
      clock: time.clock,
      dates: [100],
      timers: time.timers,
      log: { warn: (line: string) => void warnings.push(line) },
      onChange: async () => undefined,
      periodic: [
        {
          name: 'reminders',
          everyMs: 500,
          run: async (now) => {
            runs.push(now);
            if (fail) {
              fail = false;
              throw new Error('store down');
            }
          },
        },
      ],
    });
    await scheduler.start();
    await scheduler.idle();
    expect(runs).toEqual([1_000]);
    expect(warnings).toEqual(['scheduler: reminders failed (store down); trying again at the next look']);
    await time.advance(2_000);
    expect(runs).toEqual([1_000, 1_500, 2_000]);
    scheduler.stop();
    await scheduler.idle();
    expect(time.pending()).toEqual([]);
  });

  it('makes a post live at its time while a slow pass of the periodic work is still running, and never runs two passes at once', async () => {
    const time = fakeTime(1_000);
    const changes: number[] = [];
    const passes: number[] = [];
    let finish: () => void = () => undefined;
    const scheduler = createScheduler({
      clock: time.clock,
      dates: [2_200],
      timers: time.timers,
      onChange: async () => void changes.push(time.clock()),
      periodic: [
        {
          name: 'reminders',
          everyMs: 500,
          // Each pass takes until the test lets it end (a slow store).
          run: (now) => {
            passes.push(now);
            return new Promise<void>((resolve) => (finish = resolve));
          },
        },
      ],
    });
    await scheduler.start();
    expect(passes).toEqual([1_000]);
    await time.advance(2_200);
    // The post went live at its time; the looks meanwhile started no second pass.
    expect(changes).toEqual([1_000, 2_200]);
    expect(passes).toEqual([1_000]);
    finish();
    await scheduler.idle();
    // The next look after the slow pass ended starts the next pass.
    await time.advance(2_700);
    expect(passes).toEqual([1_000, 2_700]);
    finish();
    scheduler.stop();
    await scheduler.idle();
  });
});
