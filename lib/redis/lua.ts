/**
 * Lua scripts with named keys and arguments. A script declares its keys and
 * arguments by name; its text starts with a header that binds each name to its
 * place (`local subscriber = KEYS[1]`, `local email = ARGV[1]`), and a call
 * passes them as objects, which `scriptCall` lays out in the declared order.
 * So a script body never counts places, and a call cannot put a value in the
 * wrong one.
 */

/** What the store needs of a Redis client: EVAL (node-redis and Upstash alike). */
export type Evaluator = { eval: (script: string, keys: string[], args: string[]) => Promise<unknown> };

export type LuaScript<K extends string, A extends string> = { readonly keys: readonly K[]; readonly args: readonly A[]; readonly source: string };

/** A script's keys and arguments by name; a script without keys (or arguments) takes none. */
export type ScriptInput<K extends string, A extends string> = ([K] extends [never] ? { keys?: never } : { keys: Record<K, string> }) &
  ([A] extends [never] ? { args?: never } : { args: Record<A, string | number> });

// Lua's keywords, and the globals the scripts use, which a local must not hide.
const LUA_RESERVED = new Set(
  [
    'and break do else elseif end false for function goto if in local nil not or repeat return then true until while',
    'KEYS ARGV redis cjson tonumber tostring ipairs pairs next type error select unpack pcall table string math',
  ]
    .join(' ')
    .split(' '),
);

function checkName(name: string, seen: Set<string>): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || LUA_RESERVED.has(name)) throw new Error(`"${name}" cannot name a Lua script's key or argument`);
  if (seen.has(name)) throw new Error(`"${name}" names two keys or arguments of one Lua script`);
  seen.add(name);
}

/**
 * A script whose keys and arguments are bound to locals of these names, in
 * this order, before `parts` (shared Lua functions first, then the body).
 */
export function luaScript<const K extends string = never, const A extends string = never>(
  declaration: { keys?: readonly K[]; args?: readonly A[] },
  ...parts: string[]
): LuaScript<K, A> {
  const keys = declaration.keys ?? [];
  const args = declaration.args ?? [];
  const seen = new Set<string>();
  for (const name of [...keys, ...args]) checkName(name, seen);
  const header = [...keys.map((name, index) => `local ${name} = KEYS[${index + 1}]`), ...args.map((name, index) => `local ${name} = ARGV[${index + 1}]`)];
  return { keys, args, source: [...header, ...parts.map((part) => part.trim())].join('\n') };
}

/** The EVAL call of a script: its text, and its keys and arguments in the declared order. */
export function scriptCall<K extends string, A extends string>(
  script: LuaScript<K, A>,
  input: ScriptInput<K, A>,
): { source: string; keys: string[]; args: string[] } {
  const keys = (input.keys ?? {}) as Record<K, string>;
  const args = (input.args ?? {}) as Record<A, string | number>;
  return { source: script.source, keys: script.keys.map((name) => keys[name]), args: script.args.map((name) => String(args[name])) };
}

/** Runs scripts on one client, every key under one prefix (the store's namespace). */
export type ScriptRunner = <K extends string, A extends string>(script: LuaScript<K, A>, input: ScriptInput<K, A>) => Promise<unknown>;

export function scriptRunner(redis: Evaluator, keyPrefix: string): ScriptRunner {
  return (script, input) => {
    const call = scriptCall(script, input);
    return redis.eval(
      call.source,
      call.keys.map((key) => `${keyPrefix}${key}`),
      call.args,
    );
  };
}
