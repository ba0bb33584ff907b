import { describe, expect, it } from 'vitest';
import { sendBatches } from '@/lib/newsletter/platform';
import type { StepBudget, StepResult } from '@/lib/newsletter/sender';

const settings = { batchSize: 3, budgetMs: 10_000 };

/** A newsletter whose steps each take `stepMs` on the test's clock and claim from `due` messages. */
function fakeNewsletter(due: number, stepMs: number, clock: { now: number }) {
  const budgets: StepBudget[] = [];
  let left = due;
  return {
    budgets,
    async step(budget: StepBudget): Promise<StepResult> {
      budgets.push(budget);
      if (clock.now >= budget.until) return { messages: 0, more: true };
      const messages = Math.min(left, budget.messages);
      left -= messages;
      clock.now += stepMs;
      return { messages, more: messages === budget.messages };
    },
  };
}

describe('a cron call sending the newsletter in batches', () => {
  it('sends one batch before it answers, and the rest afterwards while messages are due', async () => {
    const clock = { now: 1_000 };
    const newsletter = fakeNewsletter(8, 100, clock);
    const deferred: (() => Promise<void>)[] = [];
    const first = await sendBatches(newsletter, settings, { clock: () => clock.now, defer: (work) => deferred.push(work) });
    expect(first).toEqual({ messages: 3, more: true });
    expect(newsletter.budgets).toEqual([{ messages: 3, until: 11_000 }]);
    expect(deferred).toHaveLength(1);
    await deferred[0]?.();
    // 3 + 3 + 2: the third batch found fewer than it may claim, so nothing more was due.
    expect(newsletter.budgets).toHaveLength(3);
    expect(newsletter.budgets.every((budget) => budget.until === 11_000)).toBe(true);
  });

  it('stops claiming when its time budget is spent, leaving the rest to a later call', async () => {
    const clock = { now: 1_000 };
    const newsletter = fakeNewsletter(1_000, 4_000, clock);
    const deferred: (() => Promise<void>)[] = [];
    await sendBatches(newsletter, settings, { clock: () => clock.now, defer: (work) => deferred.push(work) });
    await deferred[0]?.();
    // Batches at 1 s, 5 s and 9 s on the clock; at 13 s the 10 s budget is spent.
    expect(newsletter.budgets).toHaveLength(3);
    expect(clock.now).toBe(13_000);
  });

  it('defers nothing when the first batch left nothing due', async () => {
    const clock = { now: 1_000 };
    const deferred: (() => Promise<void>)[] = [];
    expect(await sendBatches(fakeNewsletter(2, 100, clock), settings, { clock: () => clock.now, defer: (work) => deferred.push(work) })).toEqual({
      messages: 2,
      more: false,
    });
    expect(deferred).toEqual([]);
  });

  it('reports a failure of a later batch and stops', async () => {
    const clock = { now: 1_000 };
    const warned: string[] = [];
    let calls = 0;
    const failing = {
      step: async (): Promise<StepResult> => {
        if (++calls > 1) throw new Error('store unreachable');
        return { messages: 3, more: true };
      },
    };
    const deferred: (() => Promise<void>)[] = [];
    await sendBatches(failing, settings, { clock: () => clock.now, defer: (work) => deferred.push(work), log: { warn: (line) => warned.push(line) } });
    await deferred[0]?.();
    expect(calls).toBe(2);
    expect(warned).toEqual(['newsletter: sending paused (store unreachable); the next cron call goes on']);
  });
});
