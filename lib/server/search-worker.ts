import { parentPort } from 'node:worker_threads';
import { publishedPosts } from '../content';
import { searchHere } from '../search/response';
import { prepareSearchIndex, refreshSearchIndex } from '../search/site';
import type { FromSearchWorker, ToSearchWorker } from './search-thread';

/**
 * The search thread of lectern's server (./search-thread.ts): it holds the index and runs each
 * search. It follows `publishedPosts()` as the Next route does (lib/search/site.ts): when the list
 * changes, the new index is built in slices between searches and the previous one answers meanwhile.
 * The server says when a post went live, so the new index is started then, not by the next search.
 */
const port = parentPort;
if (!port) throw new Error("lib/server/search-worker.ts runs as a worker thread of lectern's server");

const send = (message: FromSearchWorker) => port.postMessage(message);

// Built before the thread says it is ready: the server does not listen before that. The server logs
// the thread's build in a line of its own; `search index of … built` stays the line of the app's index.
const started = performance.now();
prepareSearchIndex(() => undefined);
port.on('message', (message: ToSearchWorker) => {
  if ('refresh' in message) refreshSearchIndex();
  else send({ id: message.id, ...searchHere(message.query) });
});
send({ ready: true, posts: publishedPosts().length, ms: Math.round(performance.now() - started) });
