import { createHash } from 'node:crypto';
import type { RedisClientType } from 'redis';

/**
 * @upstash/ratelimit speaks to Redis through `evalsha`/`eval` of its own Lua
 * scripts. Since 2.1.0 each script starts with `#!lua flags=allow-key-locking`,
 * which only Upstash accepts; a stock Redis answers
 * `ERR Unexpected flag in script shebang`. This adapter strips that line and
 * maps the library's script hashes to the hashes of the stripped scripts.
 */
const SHEBANG = /^#!lua[^\n]*\n/;
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');

export function stripShebang(script: string): string {
  return script.replace(SHEBANG, '');
}

export type ScriptRunner = {
  evalsha: (hash: string, keys: string[], args: unknown[]) => Promise<unknown>;
  eval: (script: string, keys: string[], args: unknown[]) => Promise<unknown>;
};

export function nodeRedisAdapter(client: Pick<RedisClientType, 'evalSha' | 'eval'>): ScriptRunner {
  /** library hash → hash Redis knows the stripped script by */
  const stripped = new Map<string, string>();
  const options = (keys: string[], args: unknown[]) => ({ keys, arguments: args.map((arg) => (arg === null || arg === undefined ? '' : String(arg))) });
  return {
    async evalsha(hash, keys, args) {
      const redisHash = stripped.get(hash);
      // Unknown here: answer as Redis would, so the library sends the script itself.
      if (!redisHash) throw new Error('NOSCRIPT No matching script.');
      return client.evalSha(redisHash, options(keys, args));
    },
    async eval(script, keys, args) {
      const body = stripShebang(script);
      stripped.set(sha1(script), sha1(body));
      return client.eval(body, options(keys, args));
    },
  };
}
