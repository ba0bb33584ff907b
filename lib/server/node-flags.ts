/**
 * The Node.js flags lectern's server runs with, wherever it is started: `npm start` and
 * `npm run dev` (package.json), the systemd unit and the container image (deploy/), the tests and
 * the bench. A unit test holds each of those places to this list.
 *
 * None today. `--max-semi-space-size=16` (Node.js 20's young generation) was measured: it made the
 * server start about 80 MiB smaller and grow less during a newsletter send on Node.js 24. It was
 * taken out when the scheduling contract test's first search missed a post going live; the cause
 * turned out to be the search index being refreshed only after the lists were remade (since fixed),
 * and the flag has not been measured again without that bug. README, "The runtime", and
 * BENCHMARKS.md say what was measured.
 */
export const SERVER_NODE_FLAGS: readonly string[] = [];

/** The arguments after `node` that start lectern's server (server.ts, compiled by tsx as it loads). */
export const SERVER_ARGS: readonly string[] = [...SERVER_NODE_FLAGS, '--import', 'tsx', 'server.ts'];
