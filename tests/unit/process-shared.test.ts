import { describe, expect, it, vi } from 'vitest';

describe('process-shared', () => {
  it('gives every copy of the module the object the first copy made', async () => {
    const first = await import('@/lib/process-shared');
    const made = { made: 'first' };
    expect(first.findShared('test-object')).toBeUndefined();
    expect(first.shared('test-object', () => made)).toBe(made);
    vi.resetModules();
    const second = await import('@/lib/process-shared');
    expect(second).not.toBe(first);
    let madeAgain = false;
    expect(
      second.shared('test-object', () => {
        madeAgain = true;
        return { made: 'second' };
      }),
    ).toBe(made);
    expect(madeAgain).toBe(false);
    expect(second.findShared('test-object')).toBe(made);
  });

  it('keeps objects of different names apart', async () => {
    const { findShared, shared } = await import('@/lib/process-shared');
    shared('test-a', () => 'a');
    shared('test-b', () => 'b');
    expect([findShared('test-a'), findShared('test-b'), findShared('test-c')]).toEqual(['a', 'b', undefined]);
  });
});
