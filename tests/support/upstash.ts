import { createHash } from 'node:crypto';
import http from 'node:http';
import { createClient, ErrorReply } from 'redis';
import { freePort } from './site';

/**
 * A stand-in for Upstash at the network boundary: an HTTP server that speaks
 * Upstash's REST protocol (one command as a JSON array at `/`, `/pipeline`,
 * `/multi-exec`, a bearer token, `Upstash-Encoding: base64`) and runs every
 * command on the real Redis server the tests start. What lectern sends is
 * exactly what it would send to Upstash; only the far end is local.
 */
export type UpstashStandIn = { url: string; token: string; requests: () => number; close: () => Promise<void> };

type Command = (string | number)[];
type Reply = { result: unknown } | { error: string };

function isCommand(value: unknown): value is Command {
  return Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === 'string' || typeof part === 'number');
}

/** RESP values as Upstash writes them: bulk strings base64-encoded when asked, integers and nil as JSON. */
function encode(value: unknown, base64: boolean): unknown {
  if (typeof value === 'string') return base64 ? Buffer.from(value, 'utf8').toString('base64') : value;
  if (Buffer.isBuffer(value)) return base64 ? value.toString('base64') : value.toString('utf8');
  if (Array.isArray(value)) return value.map((item) => encode(item, base64));
  return value ?? null;
}

function errorText(error: unknown): string {
  return error instanceof ErrorReply || error instanceof Error ? error.message : String(error);
}

export async function startUpstashStandIn(redisUrl: string, token = `test-token-${Math.random().toString(36).slice(2)}`): Promise<UpstashStandIn> {
  const client = createClient({ url: redisUrl });
  client.on('error', () => undefined);
  await client.connect();
  let requests = 0;
  // Upstash accepts a first script line such as `#!lua flags=allow-key-locking`; a stock Redis
  // does not. The stand-in accepts it as Upstash does: it runs the script without that line and
  // answers EVALSHA by the hash of the script as sent.
  const scripts = new Map<string, string>();
  const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
  const toRedis = (command: Command): string[] => {
    const parts = command.map(String);
    const name = parts[0]?.toUpperCase();
    if ((name === 'EVAL' || name === 'SCRIPT') && parts.length > 1) {
      const index = name === 'EVAL' ? 1 : 2;
      const script = parts[index] ?? '';
      const stripped = script.replace(/^#!lua[^\n]*\n/, '');
      scripts.set(sha1(script), sha1(stripped));
      parts[index] = stripped;
    }
    if (name === 'EVALSHA' && parts[1]) parts[1] = scripts.get(parts[1].toLowerCase()) ?? parts[1];
    return parts;
  };

  const run = async (command: Command, base64: boolean): Promise<Reply> => {
    try {
      return { result: encode(await client.sendCommand(toRedis(command)), base64) };
    } catch (error) {
      return { error: errorText(error) };
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests++;
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST') return answer(405, { error: 'ERR only POST is served here' });
      if (req.headers.authorization !== `Bearer ${token}`) return answer(401, { error: 'Unauthorized' });
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return answer(400, { error: 'ERR failed to parse command' });
      }
      const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
      const path = (req.url ?? '/').split('?', 1)[0];
      void (async () => {
        if (path === '/' || path === '') {
          if (!isCommand(body)) return answer(400, { error: 'ERR a command is a JSON array of strings' });
          const reply = await run(body, base64);
          return answer('error' in reply ? 400 : 200, reply);
        }
        if (path === '/pipeline' || path === '/multi-exec') {
          if (!Array.isArray(body) || !body.every(isCommand)) return answer(400, { error: 'ERR a pipeline is a JSON array of commands' });
          if (path === '/pipeline') {
            const replies: Reply[] = [];
            for (const command of body) replies.push(await run(command, base64));
            return answer(200, replies);
          }
          const multi = client.multi();
          for (const command of body) multi.addCommand(toRedis(command));
          try {
            const results = (await multi.exec()) as unknown[];
            return answer(
              200,
              results.map((result) => (result instanceof Error ? { error: result.message } : { result: encode(result, base64) })),
            );
          } catch (error) {
            return answer(400, { error: errorText(error) });
          }
        }
        return answer(404, { error: 'ERR unknown path' });
      })().catch((error: unknown) => answer(500, { error: errorText(error) }));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await client.quit().catch(() => client.destroy());
    },
  };
}
