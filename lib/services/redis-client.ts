import { createClient } from 'redis';

function createFailFastClient(url: string, commandTimeoutMs: number) {
  return createClient({
    url,
    // While disconnected a command is refused at once instead of queued until the
    // connection returns (node-redis's queue would hold it for up to 5 s).
    disableOfflineQueue: true,
    commandOptions: { timeout: commandTimeoutMs },
    socket: { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2000) },
  });
}

export type FailFastRedis = {
  client: ReturnType<typeof createFailFastClient>;
  /** Runs commands on the client, failing once `commandTimeoutMs` has passed without a connection or an answer. */
  run: <T>(command: (client: FailFastRedis['client']) => Promise<T>) => Promise<T>;
  close: () => Promise<void>;
};

/**
 * A node-redis client that never makes a request wait long on a Redis that is
 * down or hangs: a command fails at once while disconnected, and after
 * `commandTimeoutMs` when Redis does not answer (node-redis's own timeout ends
 * once a command is written); the client keeps reconnecting in the background,
 * so everything works again by itself when Redis is back. The rate limiter and
 * the store both make theirs here.
 */
export function failFastRedis(url: string, options: { commandTimeoutMs: number }): FailFastRedis {
  const client = createFailFastClient(url, options.commandTimeoutMs);
  // Failures reach the caller of each command; node-redis only needs a listener.
  client.on('error', () => undefined);
  // Settles on the first connection (node-redis retries until then).
  const connecting = client.connect().then(
    () => undefined,
    () => undefined,
  );
  const run: FailFastRedis['run'] = async (command) => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${options.commandTimeoutMs} ms`)), options.commandTimeoutMs);
    });
    try {
      return await Promise.race([
        (async () => {
          if (!client.isReady) await Promise.race([connecting, expired]);
          if (!client.isReady) throw new Error('Redis is not connected');
          return command(client);
        })(),
        expired,
      ]);
    } finally {
      clearTimeout(timer);
    }
  };
  const close = async () => {
    // A Redis that is gone or hangs is left without a goodbye.
    if (client.isReady) await run((connected) => connected.quit()).catch(() => client.destroy());
    else client.destroy();
  };
  return { client, run, close };
}
