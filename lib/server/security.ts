import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { cameOverHttps } from '../http/security-headers';
import { captureResponse, writeHead } from './capture';
import { policyReadsBody, responseHead, type RequestFacts } from './response-headers';

export type SecurityOptions = {
  /** The public base URL (SITE_URL): https there means every response was reached over https. */
  siteUrl: string;
  /** Proxy hops whose X-Forwarded-Proto is believed (TRUST_PROXY). */
  trustProxy: number;
  /** Send a Content-Security-Policy (off in development, where Next evaluates code and injects scripts). */
  csp: boolean;
};

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
 * Gives a response that is not kept anywhere its final head (lib/server/response-headers.ts),
 * whatever path in Next writes it. The head goes out as soon as it is written and the
 * body streams behind it, except an HTML body that arrives without a policy of its own
 * (a page answering a form post): that is held back until it ends, so its inline
 * elements can be hashed.
 */
export function passThrough(req: IncomingMessage, res: ServerResponse, facts: RequestFacts): void {
  captureResponse(res, {
    onHead: ({ status, headers }) => {
      if (req.method !== 'HEAD' && policyReadsBody(facts, status, headers)) return undefined;
      return responseHead(facts, { status, headers });
    },
    onEnd: ({ status, reason, headers }, body) => {
      const sized = headers.map(([name, value]): (typeof headers)[number] => [name, name === 'content-length' ? body.length : value]);
      writeHead(res, status, reason, responseHead(facts, { status, headers: sized, body }));
      res.end(body);
    },
  });
}
