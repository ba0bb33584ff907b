import { describe, expect, it } from 'vitest';
import * as bookingScripts from '@/lib/services/store/bookings/redis-scripts';
import { luaScript, scriptCall, scriptRunner, type LuaScript } from '@/lib/redis/lua';
import * as outboxScripts from '@/lib/services/store/outbox/redis-scripts';
import * as storeScripts from '@/lib/services/store/redis-scripts';
import * as settingsScripts from '@/lib/services/store/settings/redis-scripts';
import * as subscriberScripts from '@/lib/services/store/subscribers/redis-scripts';
import * as supportScripts from '@/lib/services/store/support/redis-scripts';

describe('luaScript', () => {
  it('binds each key and argument to a local of its name, in the declared order, before the body', () => {
    const script = luaScript({ keys: ['subscriber', 'tokens'], args: ['email', 'now'] }, `return { subscriber, tokens, email, now }`);
    expect(script.source).toBe(
      [
        'local subscriber = KEYS[1]',
        'local tokens = KEYS[2]',
        'local email = ARGV[1]',
        'local now = ARGV[2]',
        'return { subscriber, tokens, email, now }',
      ].join('\n'),
    );
  });

  it('puts shared functions between the header and the body', () => {
    const script = luaScript({ args: ['n'] }, '\nlocal function double(x) return x * 2 end\n', 'return double(tonumber(n))');
    expect(script.source).toBe('local n = ARGV[1]\nlocal function double(x) return x * 2 end\nreturn double(tonumber(n))');
  });

  it('refuses a name Lua cannot take or that would hide what the scripts use, and a name given twice', () => {
    expect(() => luaScript({ keys: ['end'] }, '')).toThrow('"end" cannot name');
    expect(() => luaScript({ args: ['tonumber'] }, '')).toThrow('"tonumber" cannot name');
    expect(() => luaScript({ args: ['KEYS'] }, '')).toThrow('"KEYS" cannot name');
    expect(() => luaScript({ keys: ['mail-prefix'] }, '')).toThrow('"mail-prefix" cannot name');
    expect(() => luaScript({ keys: ['1st'] }, '')).toThrow('"1st" cannot name');
    expect(() => luaScript({ keys: ['email'], args: ['email'] }, '')).toThrow('"email" names two');
  });
});

describe('scriptCall', () => {
  const script = luaScript({ keys: ['subscriber', 'tokens'], args: ['email', 'now', 'name'] }, 'return 1');

  it('lays keys and arguments out in the declared order, whatever the order they are given in, as strings', () => {
    expect(scriptCall(script, { keys: { tokens: 't:', subscriber: 's:a' }, args: { now: 1000, name: '', email: 'a@example.com' } })).toEqual({
      source: script.source,
      keys: ['s:a', 't:'],
      args: ['a@example.com', '1000', ''],
    });
  });

  it('passes no keys and no arguments to a script that declares none', () => {
    expect(scriptCall(luaScript({}, `return redis.call('PING')`), {})).toEqual({ source: `return redis.call('PING')`, keys: [], args: [] });
  });
});

describe('scriptRunner', () => {
  it('evaluates the script with every key under the prefix and the arguments as given', async () => {
    const calls: [string, string[], string[]][] = [];
    const run = scriptRunner(
      {
        eval: async (source, keys, args) => {
          calls.push([source, keys, args]);
          return 'ok';
        },
      },
      'ns:',
    );
    const script = luaScript({ keys: ['outbox', 'mail'], args: ['id'] }, 'return 1');
    expect(await run(script, { keys: { mail: 'mail:1', outbox: 'outbox' }, args: { id: 7 } })).toBe('ok');
    expect(calls).toEqual([[script.source, ['ns:outbox', 'ns:mail:1'], ['7']]]);
  });
});

describe("the store's scripts", () => {
  const modules: Record<string, unknown>[] = [storeScripts, subscriberScripts, supportScripts, outboxScripts, bookingScripts, settingsScripts];
  // Every module's scripts; the shared Lua functions (plain strings) are part of them.
  const scripts = modules
    .flatMap((module) => Object.entries(module))
    .filter((entry): entry is [string, LuaScript<string, string>] => typeof entry[1] === 'object');

  it.each(scripts)('%s reads KEYS and ARGV only in its header, and uses every name it declares', (_, script) => {
    const headerLines = script.keys.length + script.args.length;
    const body = script.source.split('\n').slice(headerLines).join('\n');
    expect(body).not.toMatch(/\b(KEYS|ARGV)\s*\[/);
    for (const name of [...script.keys, ...script.args]) expect(body).toMatch(new RegExp(`\\b${name}\\b`));
  });
});
