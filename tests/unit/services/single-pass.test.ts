import { describe, expect, it } from 'vitest';
import { singlePass } from '@/lib/services/single-pass';

/** A pass whose end the test decides. */
function controlledPass() {
  const started: (() => void)[] = [];
  const pass = () => new Promise<void>((resolve) => started.push(resolve));
  return { pass, started };
}

describe('singlePass', () => {
  it('runs one pass at a time, and one more after it however often it was kicked meanwhile', async () => {
    const { pass, started } = controlledPass();
    const passes = singlePass(pass, { failed: () => undefined, stopped: () => false });
    passes.kick();
    passes.kick();
    passes.kick();
    expect(started).toHaveLength(1);
    started[0]!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toHaveLength(2);
    started[1]!();
    await passes.idle();
    expect(started).toHaveLength(2);
  });

  it('reports a failed pass and tries again at the next kick', async () => {
    const failures: unknown[] = [];
    let calls = 0;
    const passes = singlePass(
      async () => {
        calls += 1;
        if (calls === 1) throw new Error('store unavailable');
      },
      { failed: (error) => failures.push(error), stopped: () => false },
    );
    passes.kick();
    await passes.idle();
    passes.kick();
    await passes.idle();
    expect(calls).toBe(2);
    expect(failures).toEqual([new Error('store unavailable')]);
  });

  it('starts nothing once stopped, and idle waits for the pass under way', async () => {
    const { pass, started } = controlledPass();
    let stopped = false;
    const passes = singlePass(pass, { failed: () => undefined, stopped: () => stopped });
    passes.kick();
    stopped = true;
    passes.kick();
    let idle = false;
    const waiting = passes.idle().then(() => (idle = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    started[0]!();
    await waiting;
    expect(started).toHaveLength(1);
  });
});
