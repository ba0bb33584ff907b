import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { gracefulShutdown, type Shutdown } from '@/lib/server/shutdown';

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
