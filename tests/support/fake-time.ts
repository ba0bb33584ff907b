import type { Timers } from '@/lib/publishing/scheduler';

/** A clock and timers a test moves by hand: `advance` runs each timer whose time has come, in order. */
export function fakeTime(start: number) {
  let now = start;
  let next = 1;
  const pending = new Map<number, { at: number; run: () => void }>();
  const timers: Timers = {
    set: (run, ms) => {
      const id = next++;
      pending.set(id, { at: now + ms, run });
      return id;
    },
    clear: (id) => void pending.delete(id as number),
  };
  return {
    clock: () => now,
    timers,
    pending: () => [...pending.values()].map((timer) => timer.at),
    async advance(to: number) {
      for (;;) {
        const due = [...pending.entries()].filter(([, timer]) => timer.at <= to).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        pending.delete(due[0]);
        now = due[1].at;
        due[1].run();
        // Lets what the timer started (a scheduler's onChange, a sender's renewal) and its next timer settle.
        for (let turn = 0; turn < 10; turn++) await Promise.resolve();
      }
      now = to;
    },
  };
}
