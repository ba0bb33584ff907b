import { describe, expect, it } from 'vitest';
import { fediverseQueueThread, QueueThreadEndedError, type QueueThreadSetup } from '../../../lib/fediverse/queue-thread';

const setup = { handle: 'blog', settings: {} } as unknown as QueueThreadSetup;
const entry = new URL('./fixtures/queue-thread-that-dies.ts', import.meta.url);

describe("the fediverse's queue thread", () => {
  it('answers a delivery once the thread has queued it, and says so when the thread ended before it answered; another thread takes the next', async () => {
    const warnings: string[] = [];
    const thread = fediverseQueueThread(setup, { entry, restartMs: 50, log: { warn: (line: string) => warnings.push(line) } });
    await thread.start();
    try {
      await expect(thread.deliver(['a-post'])).resolves.toBeUndefined();
      await expect(thread.deliver(['refused'])).rejects.toThrow('refused');
      await expect(thread.deliver(['crash'])).rejects.toBeInstanceOf(QueueThreadEndedError);
      expect(warnings.join('\n')).toMatch(/the queue's thread ended \(exit code 3\)/);
      // Until the next thread runs, the caller is told that none does (lectern's server then queues the post itself).
      let next: Promise<void> | undefined;
      for (let waited = 0; !(next = thread.deliver(['another-post'])); waited += 20) {
        if (waited > 10_000) throw new Error('no thread was started again');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await expect(next).resolves.toBeUndefined();
    } finally {
      await thread.stop();
    }
    expect(thread.deliver(['after-stop'])).toBeUndefined();
  });
});
