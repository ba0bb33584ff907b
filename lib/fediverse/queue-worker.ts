import { parentPort, workerData } from 'node:worker_threads';
import { describeError } from '../log';
import { connectRedis } from '../redis/client';
import { clock } from '../runtime/site';
import type { FromQueueThread, QueueThreadSetup, ToQueueThread } from './queue-thread';
import { fediverseOn, fediverseStores } from './site';

/**
 * The thread lectern's server starts for the fediverse's queue (./queue-thread.ts): the site's
 * federation, made as the server's is from its settings, on stores of its own connection, listens to
 * the queue until the server asks it to stop, and queues the deliveries of posts that went live
 * (their fan-out to every follower's inbox is made here, not in the server's thread).
 */
const port = parentPort;
if (!port) throw new Error('lib/fediverse/queue-worker.ts runs as a worker thread of lectern');

const { setup } = workerData as { setup: QueueThreadSetup };
const redis = connectRedis(setup.settings.redis);
const fediverse = await fediverseOn(fediverseStores(setup.settings, redis), setup.settings, setup.handle, clock);
await fediverse.part.start();

port.on('message', (message: ToQueueThread) => {
  if ('deliver' in message) {
    const { id } = message;
    fediverse.deliver(message.deliver).then(
      () => port.postMessage({ id } satisfies FromQueueThread),
      (error: unknown) => port.postMessage({ id, failed: describeError(error) } satisfies FromQueueThread),
    );
    return;
  }
  void (async () => {
    try {
      await fediverse.part.stop();
      if (redis?.kind === 'redis') await redis.redis.close();
    } catch (error) {
      console.warn(`fediverse: the queue's thread stopped badly (${describeError(error)})`);
    }
    process.exit(0);
  })();
});
