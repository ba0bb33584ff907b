import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import net, { type Socket } from 'node:net';
import { describeError } from '../log';

/**
 * What one connection may cost the server (README, "Slow and idle clients"): a client that trickles
 * its headers or its body, or keeps a connection idle, holds a socket and a file descriptor, so each
 * is closed after a bound of seconds; past `max` connections a new one is closed at once.
 */
export type ConnectionLimits = { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; max: number };

/**
 * How often Node checks the headers and request timeouts (its `connectionsCheckingInterval`, 30 s
 * by default, so a slow client was closed up to 30 s late): a quarter of the headers timeout, at
 * most a second.
 */
export function checkingIntervalMs(limits: Pick<ConnectionLimits, 'headersTimeoutMs'>): number {
  return Math.min(1000, Math.max(100, Math.floor(limits.headersTimeoutMs / 4)));
}

export type Shutdown = {
  /** The HTTP server it stops, made here (see below), listening on nothing yet. */
  readonly server: Server;
  /** True from the moment the stop begins: /healthz answers 503 and every response closes its connection. */
  readonly stopping: boolean;
  /** Stops the server and then the services; resolves once both are done (at most twice `graceMs`). Called again, the same stop. */
  begin(): Promise<void>;
};

/**
 * How lectern's server stops (SIGTERM, SIGINT), in order (`quiesce` first: background work that
 * starts items of its own, the newsletter's messages, starts no new one from the signal on):
 * 1. it stops accepting connections, so a proxy sends new requests to another instance (a
 *    refused connection carried no request, and nginx passes it on, a POST too);
 * 2. requests in flight finish; each answer, and any request still arriving on an open
 *    connection, closes its connection (`Connection: close`). Idle connections are not cut:
 *    a proxy could be writing a request on one at that instant, which it could not safely
 *    retry; the proxy closes them itself (deploy/nginx.conf keeps idle upstream connections
 *    4 s, under Node's 5 s). Whatever is left after `graceMs` is closed;
 * 3. the services stop (`stopServices`: background work after the item it is on, then the
 *    store and Redis), bounded by `graceMs` again.
 */
export function gracefulShutdown(
  handler: RequestListener,
  options: {
    graceMs: number;
    stopServices: () => Promise<void>;
    quiesce?: () => void;
    connections?: ConnectionLimits;
    log?: Pick<Console, 'info' | 'warn'>;
  },
): Shutdown {
  const log = options.log ?? console;
  let begun: Promise<void> | undefined;
  // Answers not yet begun when the stop begins close their connection too, and so does any request
  // arriving on an open connection afterwards. Kept per connection (its latest response), not per
  // request: a listener and a set entry per response would be work on every cached read.
  const latest = new Map<Socket, ServerResponse>();
  const limits = options.connections;
  const timeouts = limits && {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: checkingIntervalMs(limits),
  };
  const server = createServer({ ...timeouts }, (req, res) => {
    if (begun) res.shouldKeepAlive = false;
    else latest.set(req.socket, res);
    handler(req, res);
  });
  if (limits) {
    server.maxConnections = limits.max;
    // Set on the server too: the options of createServer take some of them only from Node 18.x on.
    server.headersTimeout = limits.headersTimeoutMs;
    server.requestTimeout = limits.requestTimeoutMs;
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  }
  server.on('connection', (socket: Socket) => socket.once('close', () => latest.delete(socket)));

  function within<T>(work: Promise<T>): Promise<T | 'late'> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), options.graceMs);
    });
    return Promise.race([work, late]).finally(() => clearTimeout(timer));
  }

  async function stop(): Promise<void> {
    options.quiesce?.();
    for (const res of latest.values()) if (!res.headersSent) res.shouldKeepAlive = false;
    log.info(`lectern: stopping; requests in flight have ${options.graceMs} ms to finish`);
    // net.Server's own close: it stops listening and leaves open connections alone (http.Server's
    // close would also cut the idle ones, see above); its callback waits for every connection to end.
    const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
    if ((await within(closed)) === 'late') {
      log.warn(`lectern: connections still open after ${options.graceMs} ms; closing them`);
      server.closeAllConnections();
    }
    const stopped = options.stopServices().then(
      () => 'done' as const,
      (error: unknown) => void log.warn(`lectern: a service failed to stop cleanly: ${describeError(error)}`),
    );
    if ((await within(stopped)) === 'late') log.warn(`lectern: services still stopping after ${options.graceMs} ms; exiting anyway`);
    log.info('lectern: stopped');
  }

  return {
    server,
    get stopping() {
      return begun !== undefined;
    },
    begin() {
      return (begun ??= stop());
    },
  };
}
