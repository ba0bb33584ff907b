/**
 * The Node.js flags lectern's server runs with, wherever it is started: `npm start` and
 * `npm run dev` (package.json), the systemd unit and the container image (deploy/), the tests and
 * the bench. A unit test holds each of those places to this list.
 *
 * What each does on Node.js 24 (README, "The runtime"; BENCHMARKS.md has the measurements):
 * - `--max-semi-space-size=16`: Node.js 20's young generation. Node.js 24 sizes it from the
 *   machine's memory (semi-spaces of 32 MiB and more), which made the server start about 90 MiB
 *   larger for nothing that reads or searches faster.
 * - `--heap-growing-percent=50`: the old generation is collected once it has grown by half since
 *   the last collection. On V8 13's own heuristics a newsletter send on a busy machine grew the
 *   server by 380 MiB with the short-lived parts of messages it promotes, before collecting once;
 *   with the flag, by about 70 MiB.
 */
/** The server's semi-space, in MiB (`--max-semi-space-size`): its young generation is three of them. */
export const SERVER_SEMI_SPACE_MB = 16;

/**
 * The environment the server starts with, beside its flags, in the same places (as `env NAME=value`
 * before the Node.js binary in package.json, `Environment=` in the systemd unit, `ENV` in the
 * container image). glibc reads it when the process starts, so the server cannot set it itself.
 * - `MALLOC_ARENA_MAX=2`: glibc gives a process up to eight malloc arenas a core, and
 *   each of the server's threads (V8's collectors, libuv's pool, the search and mail threads) then
 *   keeps free memory in an arena of its own. With 2 the idle server is about 60 MiB smaller,
 *   and a newsletter send, whose Buffers the mail thread makes and frees, grows it less (BENCHMARKS.md,
 *   "Before and after: Node 20 → Node 24").
 */
export const SERVER_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

export const SERVER_NODE_FLAGS: readonly string[] = [`--max-semi-space-size=${SERVER_SEMI_SPACE_MB}`, '--heap-growing-percent=50'];

/** The arguments after `node` that start lectern's server (server.ts, compiled by tsx as it loads). */
export const SERVER_ARGS: readonly string[] = [...SERVER_NODE_FLAGS, '--import', 'tsx', 'server.ts'];
