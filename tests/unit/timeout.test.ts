import { afterEach, describe, expect, it, vi } from 'vitest';
import { TimeoutError, withTimeout } from '@/lib/timeout';

afterEach(() => {
  vi.useRealTimers();
});

describe('withTimeout', () => {
  it('gives the result of work that finishes in time, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    await expect(withTimeout(1000, 'late', async () => 42)).resolves.toBe(42);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('passes on the failure of work that fails in time', async () => {
    await expect(withTimeout(1000, 'late', async () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
  });

  it('rejects with a TimeoutError carrying the message once the time is up', async () => {
    vi.useFakeTimers();
    const waiting = withTimeout(500, 'Redis did not answer within 500 ms', () => new Promise<never>(() => undefined));
    const outcome = expect(waiting).rejects.toSatisfy((error) => error instanceof TimeoutError && error.message === 'Redis did not answer within 500 ms');
    await vi.advanceTimersByTimeAsync(499);
    await vi.advanceTimersByTimeAsync(1);
    await outcome;
  });

  it('lets work race its inner waits against the deadline, so nothing starts after it', async () => {
    vi.useFakeTimers();
    const started: string[] = [];
    let connect: () => void = () => undefined;
    const connecting = new Promise<void>((resolve) => {
      connect = resolve;
    });
    const waiting = withTimeout(100, 'late', async (deadline) => {
      await Promise.race([connecting, deadline]);
      started.push('command');
    });
    const outcome = expect(waiting).rejects.toBeInstanceOf(TimeoutError);
    await vi.advanceTimersByTimeAsync(100);
    await outcome;
    connect();
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual([]);
  });
});
