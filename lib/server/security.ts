import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { cameOverHttps, contentSecurityPolicy, isHtml, securityHeaders } from '../http/security-headers';
import { applyWriteHeadArgs } from './response-headers';

const CSP = 'content-security-policy';

export type SecurityOptions = {
  /** The public base URL (SITE_URL): https there means every response was reached over https. */
  siteUrl: string;
  /** Proxy hops whose X-Forwarded-Proto is believed (TRUST_PROXY). */
  trustProxy: number;
  /** Send a Content-Security-Policy (off in development, where Next evaluates code and injects scripts). */
  csp: boolean;
};

function headerText(value: OutgoingHttpHeader | undefined): string {
  return Array.isArray(value) ? value.join(', ') : value === undefined ? '' : String(value);
}

/**
 * Adds an HTML page's Content-Security-Policy to headers kept by the read cache,
 * so the hashes are computed once per page rather than once per request.
 */
export function withDocumentPolicy(headers: [string, OutgoingHttpHeader][], body: Buffer): [string, OutgoingHttpHeader][] {
  const find = (name: string) => headers.find(([key]) => key.toLowerCase() === name)?.[1];
  if (find(CSP) !== undefined || find('content-encoding') !== undefined) return headers;
  const contentType = headerText(find('content-type'));
  if (!isHtml(contentType)) return headers;
  return [...headers, [CSP, contentSecurityPolicy(contentType, body)]];
}

/** Whether this request reached the site over https (see cameOverHttps). */
export function requestIsHttps(req: IncomingMessage, options: Pick<SecurityOptions, 'siteUrl' | 'trustProxy'>): boolean {
  return cameOverHttps({
    encrypted: Boolean((req.socket as TLSSocket).encrypted),
    siteUrl: options.siteUrl,
    trustProxy: options.trustProxy,
    forwardedProto: req.headers['x-forwarded-proto'],
  });
}

/**
 * The security headers added to a finished head (a response the read cache
 * sends): the fixed set, and a Content-Security-Policy where there is none yet.
 */
export function securedHead(headers: [string, OutgoingHttpHeader][], options: { https: boolean; csp: boolean }): [string, OutgoingHttpHeader][] {
  const fixed = Object.entries(securityHeaders({ https: options.https })).map(([name, value]): [string, OutgoingHttpHeader] => [name.toLowerCase(), value]);
  const names = new Set(fixed.map(([name]) => name));
  const secured = [...headers.filter(([name]) => !names.has(name.toLowerCase())), ...fixed];
  if (options.csp && !secured.some(([name]) => name.toLowerCase() === CSP)) {
    secured.push([CSP, contentSecurityPolicy(headerText(secured.find(([name]) => name.toLowerCase() === 'content-type')?.[1]))]);
  }
  return secured;
}

/**
 * Puts the security headers on a response, whatever path in Next writes it:
 * the fixed set on every response, and a Content-Security-Policy wherever the
 * response has none yet. An HTML body that arrives without one (a page answering
 * a form post) is held back until it ends, so its inline elements can be hashed.
 */
export function applySecurityHeaders(req: IncomingMessage, res: ServerResponse, options: SecurityOptions): void {
  const fixed = securityHeaders({ https: requestIsHttps(req, options) });
  const writeHead: (statusCode: number, reason?: string) => ServerResponse = res.writeHead;
  const write = res.write;
  const end = res.end;
  const flushHeaders = res.flushHeaders;
  let held: { status: number; reason?: string; chunks: Buffer[] } | undefined;

  const toBuffer = (chunk: unknown, encoding?: unknown) =>
    Buffer.isBuffer(chunk) ? chunk : chunk instanceof Uint8Array ? Buffer.from(chunk) : Buffer.from(String(chunk), (typeof encoding === 'string' ? encoding : 'utf8') as BufferEncoding);

  res.writeHead = function securedWriteHead(this: ServerResponse, statusCode: number, ...rest: unknown[]) {
    if (held) return this;
    const reason = applyWriteHeadArgs(this, rest);
    for (const [name, value] of Object.entries(fixed)) this.setHeader(name, value);
    if (options.csp && !this.hasHeader(CSP)) {
      const contentType = headerText(this.getHeader('content-type'));
      const readable = isHtml(contentType) && !this.hasHeader('content-encoding') && req.method !== 'HEAD' && statusCode !== 204 && statusCode !== 304;
      if (readable) {
        held = { status: statusCode, reason, chunks: [] };
        return this;
      }
      this.setHeader(CSP, contentSecurityPolicy(contentType));
    }
    return reason === undefined ? writeHead.call(this, statusCode) : writeHead.call(this, statusCode, reason);
  } as typeof res.writeHead;

  res.flushHeaders = function securedFlushHeaders(this: ServerResponse) {
    if (!this.headersSent && !held) this.writeHead(this.statusCode);
    if (!held) flushHeaders.call(this);
  };

  res.write = function securedWrite(this: ServerResponse, chunk: unknown, encoding?: unknown, callback?: unknown) {
    if (!this.headersSent && !held) this.writeHead(this.statusCode);
    if (!held) return (write as (...args: unknown[]) => boolean).call(this, chunk, encoding, callback);
    if (chunk !== undefined && chunk !== null) held.chunks.push(toBuffer(chunk, encoding));
    const cb = typeof encoding === 'function' ? encoding : callback;
    if (typeof cb === 'function') queueMicrotask(() => (cb as () => void)());
    return true;
  } as typeof res.write;

  res.end = function securedEnd(this: ServerResponse, chunk?: unknown, encoding?: unknown, callback?: unknown) {
    if (!this.headersSent && !held) this.writeHead(this.statusCode);
    if (!held) return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, encoding, callback);
    if (chunk !== undefined && chunk !== null && typeof chunk !== 'function') held.chunks.push(toBuffer(chunk, encoding));
    const cb = [chunk, encoding, callback].find((arg) => typeof arg === 'function') as (() => void) | undefined;
    const { status, reason, chunks } = held;
    held = undefined;
    const body = Buffer.concat(chunks);
    this.setHeader(CSP, contentSecurityPolicy(headerText(this.getHeader('content-type')), body));
    if (this.hasHeader('content-length')) this.setHeader('content-length', body.length);
    if (reason === undefined) writeHead.call(this, status);
    else writeHead.call(this, status, reason);
    return (end as (...args: unknown[]) => ServerResponse).call(this, body, cb);
  } as typeof res.end;
}
