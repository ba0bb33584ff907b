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

export const SERVER_NODE_FLAGS: readonly string[] = [`--max-semi-space-size=${SERVER_SEMI_SPACE_MB}`, '--heap-growing-percent=50'];

/** The arguments after `node` that start lectern's server (server.ts, compiled by tsx as it loads). */
export const SERVER_ARGS: readonly string[] = [...SERVER_NODE_FLAGS, '--import', 'tsx', 'server.ts'];
