/**
 * The Node.js flags lectern's server runs with, wherever it is started: `npm start` and
 * `npm run dev` (package.json), the systemd unit and the container image (deploy/), the tests and
 * the bench. A unit test holds each of those places to this list.
 *
 * None today. `--max-semi-space-size=16` (Node.js 20's young generation) was measured: it made the
 * server start about 80 MiB smaller and grow less during a newsletter send on Node.js 24, but the
 * search thread, which shares the process's V8 flags, then rebuilt its index after a post went live
 * too slowly for the first search to find the post within the 5 s promised (the scheduling contract
 * test). README, "The runtime", and BENCHMARKS.md say what was measured.
 */
export const SERVER_NODE_FLAGS: readonly string[] = [];

/** The arguments after `node` that start lectern's server (server.ts, compiled by tsx as it loads). */
export const SERVER_ARGS: readonly string[] = [...SERVER_NODE_FLAGS, '--import', 'tsx', 'server.ts'];
