import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { gracefulShutdown, type Shutdown } from '@/lib/server/shutdown';
import { until } from '../../support/until';

const quiet = { info: () => undefined, warn: () => undefined };
const servers: http.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.closeAllConnections();
});

/** A server whose /slow answers after `slowMs`, with a shutdown as server.ts has one. */
async function serverWith(options: {
  slowMs: number;
  graceMs: number;
  stopServices: () => Promise<void>;
  quiesce?: () => void;
  answered?: (path: string) => void;
}) {
  let arrived: () => void = () => undefined;
  /** Resolves once the server holds a request (the next one, from when this is asked). */
  const nextArrival = () => new Promise<void>((resolve) => (arrived = resolve));
  const shutdown: Shutdown = gracefulShutdown(
    (req, res) => {
      arrived();
      setTimeout(() => res.end(`answered ${req.url}`, () => options.answered?.(req.url ?? '')), req.url === '/slow' ? options.slowMs : 0);
    },
    { graceMs: options.graceMs, stopServices: options.stopServices, ...(options.quiesce ? { quiesce: options.quiesce } : {}), log: quiet },
  );
  const { server } = shutdown;
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return { server, shutdown, port, nextArrival };
}

function get(port: number, path: string, agent: http.Agent): Promise<{ status: number; body: string; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
      })
      .on('error', reject);
  });
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

describe('gracefulShutdown', () => {
  it('quiesces the background work, refuses new connections at once, lets a request in flight finish with Connection: close, then stops the services', async () => {
    const events: string[] = [];
    const { shutdown, port, nextArrival } = await serverWith({
      slowMs: 300,
      graceMs: 5000,
      stopServices: async () => void events.push('services stopped'),
      quiesce: () => void events.push('quiesced'),
      answered: (path) => events.push(`answered ${path}`),
    });
    const agent = new http.Agent({ keepAlive: true });
    const arrival = nextArrival();
    const inFlight = get(port, '/slow', agent);
    await arrival;
    const done = shutdown.begin();
    expect(shutdown.stopping).toBe(true);
    expect(await connects(port)).toBe(false);
    const answer = await inFlight;
    expect(answer).toMatchObject({ status: 200, body: 'answered /slow', connection: 'close' });
    await done;
    expect(events).toEqual(['quiesced', 'answered /slow', 'services stopped']);
    agent.destroy();
  });

  it('answers a request that arrives on an open keep-alive connection, and closes that connection', async () => {
    const { shutdown, port } = await serverWith({ slowMs: 0, graceMs: 5000, stopServices: async () => undefined });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await get(port, '/first', agent)).connection).toBe('keep-alive');
    const done = shutdown.begin();
    // The idle connection was left open: a request written on it now is answered, not cut.
    const second = await get(port, '/second', agent);
    expect(second).toMatchObject({ status: 200, body: 'answered /second', connection: 'close' });
    await done;
    agent.destroy();
  });

  it('closes what is still open once the grace has passed, and does not wait on services past it', async () => {
    const { shutdown, port, nextArrival } = await serverWith({ slowMs: 60_000, graceMs: 200, stopServices: () => new Promise<void>(() => undefined) });
    const agent = new http.Agent({ keepAlive: true });
    const arrival = nextArrival();
    const cut = get(port, '/slow', agent).then(
      () => 'answered',
      () => 'cut',
    );
    await arrival;
    const started = Date.now();
    await shutdown.begin();
    expect(await cut).toBe('cut');
    expect(Date.now() - started).toBeLessThan(2000);
    agent.destroy();
  });

  it('is one stop however often it is asked for', async () => {
    let stops = 0;
    const { shutdown } = await serverWith({ slowMs: 0, graceMs: 1000, stopServices: async () => void stops++ });
    await Promise.all([shutdown.begin(), shutdown.begin()]);
    await shutdown.begin();
    expect(stops).toBe(1);
  });

  it('says which service failed to stop without logging the address it failed on (which may hold a password)', async () => {
    const warned: string[] = [];
    const shutdown = gracefulShutdown(() => undefined, {
      graceMs: 1000,
      stopServices: () => Promise.reject(new Error('Redis redis://default:s3cret@10.0.0.5:6379 closed the connection')),
      log: { info: () => undefined, warn: (line: string) => void warned.push(line) },
    });
    servers.push(shutdown.server);
    await new Promise<void>((resolve) => shutdown.server.listen(0, '127.0.0.1', resolve));
    await shutdown.begin();
    expect(warned).toEqual(['lectern: a service failed to stop cleanly: Redis <url> closed the connection']);
  });
});

describe('the connection limits of lectern server', () => {
  const limits = { headersTimeoutMs: 1000, requestTimeoutMs: 2000, keepAliveTimeoutMs: 1000, max: 3 };

  async function limitedServer() {
    const shutdown = gracefulShutdown((req, res) => res.end('ok'), { graceMs: 1000, stopServices: async () => undefined, connections: limits, log: quiet });
    servers.push(shutdown.server);
    await new Promise<void>((resolve) => shutdown.server.listen(0, '127.0.0.1', resolve));
    const { server } = shutdown;
    const connections = () => new Promise<number>((resolve) => server.getConnections((_, count) => resolve(count)));
    return { port: (server.address() as net.AddressInfo).port, connections };
  }

  /** A socket on `port`, and what it received and when it was closed (ms after it connected). */
  function open(port: number) {
    const socket = net.connect(port, '127.0.0.1');
    const connected = new Promise<number>((resolve) => socket.once('connect', () => resolve(performance.now())));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', () => undefined);
    const closed = new Promise<number>((resolve) => socket.once('close', () => void connected.then((at) => resolve(performance.now() - at))));
    return { socket, connected, closed, received: () => received };
  }

  it('closes a client that trickles its headers once the headers timeout has passed, answering 408', async () => {
    const { port } = await limitedServer();
    const client = open(port);
    await client.connected;
    client.socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n');
    // A header line every 200 ms keeps the socket busy, never finishing the headers.
    const trickle = setInterval(() => client.socket.writable && client.socket.write(`X-Slow-${Date.now()}: 1\r\n`), 200);
    const closedAfter = await client.closed;
    clearInterval(trickle);
    expect(closedAfter).toBeGreaterThanOrEqual(limits.headersTimeoutMs - 50);
    // Closed within the timeout and one check (a quarter of it), not Node's 60 s + 30 s.
    expect(closedAfter).toBeLessThan(limits.headersTimeoutMs + 1000);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes an idle kept-alive connection after the keep-alive timeout', async () => {
    const { port } = await limitedServer();
    const client = open(port);
    await client.connected;
    client.socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const closedAfter = await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(client.received()).toContain('Keep-Alive: timeout=1');
    expect(closedAfter).toBeLessThan(limits.keepAliveTimeoutMs + 1500);
  });

  it('closes a connection past the cap at once, and takes new ones once others have closed', async () => {
    const { port, connections } = await limitedServer();
    const held = Array.from({ length: limits.max }, () => open(port));
    await Promise.all(held.map((client) => client.connected));
    // The server has counted them once each has sent a byte it answered.
    for (const client of held) client.socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await until(() => held.every((client) => client.received().includes('ok')), 'the held connections answered');
    const extra = open(port);
    await extra.connected;
    extra.socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await extra.closed;
    expect(extra.received()).toBe('');
    for (const client of held) client.socket.destroy();
    await until(async () => (await connections()) < limits.max, 'the held connections closed');
    const later = open(port);
    later.socket.write('GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    await later.closed;
    expect(later.received()).toMatch(/^HTTP\/1\.1 200 /);
  });
});
