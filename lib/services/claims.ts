import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { Timers } from '../publishing/scheduler';

/**
 * Claims with a fence. A sender claims work (a newsletter message, an outbox mail) for a lease
 * under a claim of its own: its owner (this process: host, pid and a random part, so a process
 * restarted under the same pid is another owner) and an id new to that claim. The store keeps
 * the claim with the work and renews, settles or gives it back only for the claim that holds it,
 * so a sender whose lease lapsed (a stall, a slow mail server) and whose work another sender
 * claimed meanwhile changes nothing: it learns so before sending, and when marking sent.
 */

/** This process as the owner of its claims. */
export const CLAIM_OWNER = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/** A new claim of `owner`: the fencing token the work of one claim is held by. */
export function newClaim(owner: string = CLAIM_OWNER): string {
  return `${owner}/${randomUUID()}`;
}

/** The work of one claim while its sender holds it. */
export type HeldClaim = {
  /** Whether the key is held as far as the last renewal knows (a key the store gave to another claim is not). */
  holds(key: string): boolean;
  /** Stops renewing a key: settled, or not to be sent. */
  drop(key: string): void;
  /** The keys still held, in the order claimed. */
  held(): string[];
  /** Stops the heartbeat (the keys still held keep their lease until it ends or they are given back). */
  stop(): void;
};

/**
 * Holds the keys of one claim: a heartbeat renews the lease of the keys still held every third of
 * the lease, while a slow message is on the wire and the rest wait their turn, and drops the ones
 * the store no longer holds under this claim. A failed renewal is reported to `failed`; the next
 * beat tries again (the lease has two more thirds to run).
 */
export function holdClaim(
  keys: readonly string[],
  options: { leaseMs: number; timers: Timers; renew: (keys: string[]) => Promise<string[]>; failed: (error: unknown) => void },
): HeldClaim {
  const held = new Set(keys);
  let stopped = false;
  let timer: unknown;

  async function beat(): Promise<void> {
    const asked = [...held];
    if (asked.length > 0) {
      try {
        const still = new Set(await options.renew(asked));
        for (const key of asked) if (!still.has(key)) held.delete(key);
      } catch (error) {
        options.failed(error);
      }
    }
    if (!stopped) timer = options.timers.set(() => void beat(), options.leaseMs / 3);
  }
  timer = options.timers.set(() => void beat(), options.leaseMs / 3);

  return {
    holds: (key) => held.has(key),
    drop: (key) => void held.delete(key),
    held: () => [...held],
    stop() {
      stopped = true;
      options.timers.clear(timer);
    },
  };
}
