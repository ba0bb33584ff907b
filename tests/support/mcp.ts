import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { request } from './client';

/** fetch over node:http from a chosen loopback address (for the MCP clients' transports), so a test's budget is its own. */
export function fetchFrom(from: string): FetchLike {
  return async (input, init = {}) => {
    const target = new URL(String(input));
    const headers = Object.fromEntries(new Headers(init.headers));
    const body = typeof init.body === 'string' ? init.body : undefined;
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const response = await request(target.origin, `${target.pathname}${target.search}`, { method: init.method ?? 'GET', headers, body, from });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers))
      if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
    return new Response([204, 304].includes(response.status) ? null : response.body, { status: response.status, headers: responseHeaders });
  };
}

/** The `_meta` envelope every MCP 2026-07-28 request carries. */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'lectern-contract-test', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
