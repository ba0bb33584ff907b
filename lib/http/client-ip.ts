/**
 * The header in which lectern's server records the socket address of the client.
 * Any value a client sends under this name is removed before Next sees the request.
 */
export const CLIENT_IP_HEADER = 'x-lectern-client-ip';
