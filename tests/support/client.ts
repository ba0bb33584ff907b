import http from 'node:http';

export type RawResponse = { status: number; headers: http.IncomingHttpHeaders; body: string; bytes: Buffer; json: () => unknown };

/** The whole answer to a request made with node:http. */
function readResponse(res: http.IncomingMessage): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('error', reject);
    res.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const body = bytes.toString('utf8');
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body, bytes, json: () => JSON.parse(body) });
    });
  });
}

/**
 * One HTTP request with node:http, so a test can choose its source address
 * (127.x.y.z) and send bodies fetch would not (chunked without length, any method).
 */
export function request(
  baseUrl: string,
  pathname: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer | Buffer[]; from?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(pathname, baseUrl);
    const req = http.request(
      {
        hostname: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'GET',
        headers: options.headers,
        localAddress: options.from,
        agent: false,
      },
      (res) => void readResponse(res).then(resolve, reject),
    );
    req.on('error', reject);
    if (Array.isArray(options.body)) for (const chunk of options.body) req.write(chunk);
    else if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/**
 * Sends a request's head and the first part of its body, never the rest, and
 * resolves with the answer: only a server that refuses the body without waiting
 * for all of it answers at all.
 */
export function unfinishedUpload(
  baseUrl: string,
  pathname: string,
  options: { method?: string; headers: Record<string, string>; firstPart: Buffer; from?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(pathname, baseUrl);
    const req = http.request(
      {
        hostname: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'POST',
        headers: options.headers,
        localAddress: options.from,
        agent: false,
      },
      (res) =>
        void readResponse(res).then((response) => {
          req.destroy();
          resolve(response);
        }, reject),
    );
    req.on('error', reject);
    req.write(options.firstPart);
  });
}

export function postJson(baseUrl: string, pathname: string, body: unknown, options: { headers?: Record<string, string>; from?: string } = {}) {
  const text = JSON.stringify(body);
  return request(baseUrl, pathname, {
    method: 'POST',
    from: options.from,
    headers: { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), ...options.headers },
    body: text,
  });
}

export function postForm(baseUrl: string, pathname: string, fields: Record<string, string>, options: { headers?: Record<string, string>; from?: string } = {}) {
  const text = new URLSearchParams(fields).toString();
  return request(baseUrl, pathname, {
    method: 'POST',
    from: options.from,
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'Content-Length': String(Buffer.byteLength(text)),
      Accept: 'text/html',
      ...options.headers,
    },
    body: text,
  });
}

let nextAddress = Math.floor(Math.random() * 60_000);
/** A loopback source address no other test uses, so each test has its own budget. */
export function freshAddress(): string {
  nextAddress += 1;
  return `127.${(Math.floor(nextAddress / 250) % 250) + 1}.${nextAddress % 250}.${(nextAddress % 200) + 2}`;
}
