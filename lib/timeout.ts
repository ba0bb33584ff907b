/** What a wait that ran out rejects with. */
export class TimeoutError extends Error {}

/**
 * The result of `work`, or a TimeoutError with `message` once `ms` have passed, whichever comes
 * first; the timer never outlives the wait. `work` receives the deadline itself, to race its own
 * inner waits against it (so nothing it would do after the deadline starts late).
 */
export async function withTimeout<T>(ms: number, message: string, work: (deadline: Promise<never>) => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(message)), ms);
  });
  try {
    return await Promise.race([work(deadline), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
