// The fediverse bench's receiving servers, in a worker thread of their own (so their work does not
// share an event loop with the reads being timed): `servers` HTTP servers on 127.0.0.1, each on
// its own port, each one follower's server with a shared inbox (`/inbox`) and its followers'
// own inboxes (`/users/{name}/inbox`). Every POST is answered 202 and counted by inbox and by
// activity (a second copy of one activity to one inbox counts as a duplicate); nothing is verified.
// Messages in: `report` (answers with the counts), `close`. Messages out: `listening` (the
// ports), `all` (the moment `servers` inboxes had a Create), `report`.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

const { servers: count } = workerData;

/** inbox (host:port/path) → activity ID → copies received. */
const received = new Map();
/** The inboxes that got a Create. */
const reached = new Set();
/** The moment each inbox got its first Create (ms since the epoch), in order. */
const arrivals = [];
const stats = { posts: 0, signed: 0, personal: 0, creates: 0, otherRequests: 0, bytes: 0, inFlight: 0, maxInFlight: 0 };
let announced = false;
/** A few of the requests other than POST, as `METHOD path (Accept)`. */
const otherSample = [];

function take(port, req, res) {
  if (req.method !== 'POST') {
    stats.otherRequests += 1;
    if (otherSample.length < 5) otherSample.push(`${req.method} ${req.url} (${req.headers.accept ?? 'no Accept'})`);
    req.resume();
    res.writeHead(404).end();
    return;
  }
  stats.inFlight += 1;
  stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    stats.posts += 1;
    stats.bytes += body.length;
    if (req.headers.signature || req.headers['signature-input']) stats.signed += 1;
    const pathname = (req.url ?? '/').split('?')[0];
    if (pathname !== '/inbox') stats.personal += 1;
    let activity;
    try {
      activity = JSON.parse(body.toString('utf8'));
    } catch {
      activity = {};
    }
    const inbox = `127.0.0.1:${port}${pathname}`;
    const byActivity = received.get(inbox) ?? new Map();
    received.set(inbox, byActivity);
    const id = String(activity.id ?? '');
    const copies = (byActivity.get(id) ?? 0) + 1;
    byActivity.set(id, copies);
    if (activity.type === 'Create') {
      stats.creates += 1;
      if (!reached.has(inbox)) {
        reached.add(inbox);
        arrivals.push(Date.now());
      }
      if (!announced && reached.size === count) {
        announced = true;
        parentPort.postMessage({ type: 'all', at: arrivals.at(-1) });
      }
    }
    stats.inFlight -= 1;
    res.writeHead(202, { 'Content-Length': '0' }).end();
  });
}

const listening = await Promise.all(
  Array.from(
    { length: count },
    () =>
      new Promise((resolve, reject) => {
        const server = http.createServer();
        server.on('request', (req, res) => take(server.address().port, req, res));
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve(server));
      }),
  ),
);
parentPort.postMessage({ type: 'listening', ports: listening.map((server) => server.address().port) });

parentPort.on('message', (message) => {
  if (message.type === 'report') {
    let duplicates = 0;
    for (const byActivity of received.values()) for (const copies of byActivity.values()) duplicates += copies - 1;
    parentPort.postMessage({
      type: 'report',
      stats: { ...stats, otherSample },
      inboxesReached: reached.size,
      inboxesPosted: received.size,
      duplicates,
      arrivals: [...arrivals],
    });
  } else if (message.type === 'close') {
    for (const server of listening) server.closeAllConnections();
    Promise.all(listening.map((server) => new Promise((resolve) => server.close(resolve)))).then(() => parentPort.close());
  }
});
