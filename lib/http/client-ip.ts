import type { IncomingHttpHeaders } from 'node:http';

/**
 * The header in which lectern's server records the socket address of the client.
 * Any value a client sends under this name is removed before Next sees the request.
 */
export const CLIENT_IP_HEADER = 'x-lectern-client-ip';

/** Replaces whatever the client sent under CLIENT_IP_HEADER with the socket's address. */
export function recordClientIp(headers: IncomingHttpHeaders, socketAddress: string | undefined): void {
  delete headers[CLIENT_IP_HEADER];
  if (socketAddress) headers[CLIENT_IP_HEADER] = socketAddress;
}
