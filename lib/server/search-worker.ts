import { parentPort } from 'node:worker_threads';
import { publishedPosts } from '../content';
import { describeError } from '../log';
import { mcpExchange } from '../mcp/exchange';
import { searchHere } from '../search/response';
import { prepareSearchIndex, prepareSearchIndexFor, refreshSearchIndex } from '../search/site';
import { lowerThisThreadPriority } from '../runtime/threads';
import type { FromSearchWorker, McpJob, ToSearchWorker } from './search-thread';

/**
 * The search thread of lectern's server (./search-thread.ts): it holds the index and runs each
 * search. It follows `publishedPosts()` as the Next route does (lib/search/site.ts): when the list
 * changes, the new index is built in slices between searches and the previous one answers meanwhile.
 * The server says when a post went live, so the new index is started then, not by the next search,
 * and when one is coming, so that index is built ahead and ready at its time.
 */
const port = parentPort;
if (!port) throw new Error("lib/server/search-worker.ts runs as a worker thread of lectern's server");

const send = (message: FromSearchWorker) => port.postMessage(message);

/**
 * The thread's CPU priority once its first index is built (Linux's niceness, on the thread alone):
 * where both want the CPU, the server's thread, which answers reads, gets about nine tenths of it, so
 * an MCP or search flood slows the floods rather than the readers. The first index is built at the
 * server's own priority: the server listens once it is built, and at a lower one a machine busy with
 * other work starved it for minutes. Not the lowest (19): a post that goes live is indexed anew at
 * this priority, and should be found within seconds on a busy machine.
 */
const INDEXED_PRIORITY = 10;

// Built before the thread says it is ready: the server does not listen before that. The server logs
// the thread's build in a line of its own; `search index of … built` stays the line of the app's index.
const started = performance.now();
prepareSearchIndex(() => undefined);
/** One MCP call (lib/mcp/exchange.ts), its answer's body handed over without a copy. */
async function answerMcp(id: number, job: McpJob): Promise<void> {
  try {
    const response = await mcpExchange(new Request(job.url, { method: 'POST', headers: job.headers }), job.body, job.message);
    const body = new Uint8Array(await response.arrayBuffer());
    port!.postMessage({ id, mcp: { status: response.status, headers: [...response.headers], body } } satisfies FromSearchWorker, [body.buffer]);
  } catch (error) {
    send({ id, failed: `the MCP call failed: ${describeError(error)}` });
  }
}

port.on('message', (message: ToSearchWorker) => {
  if ('refresh' in message) refreshSearchIndex();
  else if ('prepare' in message) prepareSearchIndexFor(message.prepare, (line) => console.log(`search thread: ${line}`));
  else if ('mcp' in message) void answerMcp(message.id, message.mcp);
  else send({ id: message.id, ...searchHere(message.query) });
});
send({ ready: true, posts: publishedPosts().length, ms: Math.round(performance.now() - started) });
// Its first index built at the server's priority, the thread gives way to the server's own thread.
lowerThisThreadPriority(INDEXED_PRIORITY);
