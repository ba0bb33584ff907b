/** What time it is, in epoch milliseconds, for everything that depends on which posts are live. */
export type Clock = () => number;

/**
 * The system's clock moved by `offsetMs` (LECTERN_CLOCK_OFFSET_MS, 0 outside tests), so a test can
 * start a built site a few seconds before one of its posts is due.
 */
export function offsetClock(offsetMs: number): Clock {
  return () => Date.now() + offsetMs;
}
