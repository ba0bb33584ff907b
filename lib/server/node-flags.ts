/**
 * The Node.js flags lectern's server runs with, wherever it is started: `npm start` and
 * `npm run dev` (package.json), the systemd unit and the container image (deploy/), the tests and
 * the bench. A unit test holds each of those places to this list.
 *
 * `--max-semi-space-size=16` keeps the young generation at the 16 MiB semi-spaces it had on
 * Node.js 20. V8 13 (Node.js 24) sizes it from the machine's memory (semi-spaces of 32 MiB and more)
 * and then pretenures the parts of each newsletter message nodemailer composes: they go straight to
 * the old generation, which V8 collects only once it has grown by hundreds of MiB. A send to 10,000
 * subscribers grew the server by 364 MiB on Node.js 24's defaults against 27 MiB on Node.js 20; with
 * this flag the server starts smaller and grows far less during a send (README, "The runtime").
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];

/** The arguments after `node` that start lectern's server (server.ts, compiled by tsx as it loads). */
export const SERVER_ARGS: readonly string[] = [...SERVER_NODE_FLAGS, '--import', 'tsx', 'server.ts'];
