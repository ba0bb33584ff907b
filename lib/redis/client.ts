import { Redis as UpstashRedis } from '@upstash/redis';
import { createClient } from 'redis';
import type { Settings } from '../settings';
import { withTimeout } from '../timeout';
import type { Evaluator } from './lua';

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
  /** Runs commands on the client, failing once `timeoutMs` (default `commandTimeoutMs`) has passed without a connection or an answer. */
  run: <T>(command: (client: FailFastRedis['client']) => Promise<T>, timeoutMs?: number) => Promise<T>;
  close: () => Promise<void>;
};

/**
 * A node-redis client that never makes a request wait long on a Redis that is
 * down or hangs: a command fails at once while disconnected, and after
 * `commandTimeoutMs` when Redis does not answer (node-redis's own timeout ends
 * once a command is written); the client keeps reconnecting in the background,
 * so everything works again by itself when Redis is back.
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
  const run: FailFastRedis['run'] = (command, timeoutMs = options.commandTimeoutMs) =>
    withTimeout(timeoutMs, `Redis did not answer within ${timeoutMs} ms`, async (deadline) => {
      if (!client.isReady) await Promise.race([connecting, deadline]);
      if (!client.isReady) throw new Error('Redis is not connected');
      return command(client);
    });
  const close = async () => {
    // A Redis that is gone or hangs is left without a goodbye.
    if (client.isReady) await run((connected) => connected.quit()).catch(() => client.destroy());
    else client.destroy();
  };
  return { client, run, close };
}

/**
 * How long a store operation waits for Redis: a write answers within a second (a
 * 503 when Redis is down or hangs), after the limiter's own, shorter wait.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * Upstash (Redis over HTTP) without retries, each request ending after
 * `timeoutMs`. Replies are taken as Redis gives them: the client's default would
 * parse every string that looks like JSON (a queued mail, a booking) into an object.
 */
export function upstashRedis(url: string, token: string, timeoutMs = REDIS_COMMAND_TIMEOUT_MS): UpstashRedis {
  return new UpstashRedis({ url, token, retry: { retries: 0 }, automaticDeserialization: false, signal: () => AbortSignal.timeout(timeoutMs) });
}

/** The one connection to Redis the store and the rate limiter share. */
export type RedisConnection = { kind: 'redis'; redis: FailFastRedis } | { kind: 'upstash'; redis: UpstashRedis };

/**
 * The connection the settings ask for, with one set of client settings: Upstash
 * when its URL and token are set, else the Redis server at REDIS_URL, else
 * none (limits in memory, store in SQLite). `commandTimeoutMs` bounds each
 * command (a one-off export may allow more than a request can).
 */
export function connectRedis(settings: Settings['redis'], commandTimeoutMs = REDIS_COMMAND_TIMEOUT_MS): RedisConnection | undefined {
  if (settings.upstash) return { kind: 'upstash', redis: upstashRedis(settings.upstash.url, settings.upstash.token, commandTimeoutMs) };
  if (settings.url) return { kind: 'redis', redis: failFastRedis(settings.url, { commandTimeoutMs }) };
  return undefined;
}

/** EVAL on the connection, the one command the store (and the fediverse's store and queue) needs: the same scripts run on Upstash and on a Redis server. */
export function redisEvaluator(connection: RedisConnection): Evaluator {
  if (connection.kind === 'upstash') {
    const redis = connection.redis;
    return { eval: (script, keys, args) => redis.eval(script, keys, args) };
  }
  const redis = connection.redis;
  return { eval: (script, keys, args) => redis.run((client) => client.eval(script, { keys, arguments: args })) };
}
