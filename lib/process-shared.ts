import diagnostics from 'node:diagnostics_channel';

/**
 * The one place where objects are shared by every copy of lectern's modules in
 * a process. There are several copies: server.ts runs lib/ under tsx, while Next
 * bundles instrumentation.ts, proxy.ts and the routes apart from it and from each
 * other (the production server evaluates lib/runtime once for instrumentation.ts
 * and once more for the routes; `next dev` evaluates a module again after it
 * changes). A module-level value would be one value per copy, so:
 * - the mail worker that instrumentation.ts starts, the store it uses and the
 *   in-memory rate limits are one per process whichever copy asks for them;
 * - the key with which lectern's server proves the client address it records
 *   reaches the routes without travelling in a request, a file or the environment
 *   (which child processes inherit).
 *
 * Objects pass by a named diagnostics channel, which Node.js keeps once per
 * process for all copies: asking publishes a request that the owner's
 * subscriber fills in. Only code running in this process can ask or answer;
 * nothing is written on the global object.
 */
type Request = { value?: unknown };

const channelName = (name: string) => `lectern:shared:${name}`;

/** The object shared under `name`, or undefined when no copy has made one. */
export function findShared<T>(name: string): T | undefined {
  const request: Request = {};
  diagnostics.channel(channelName(name)).publish(request);
  return request.value as T | undefined;
}

/** The object shared under `name`, made here by `create` when no copy has made it yet. */
export function shared<T>(name: string, create: () => T): T {
  const found = findShared<T>(name);
  if (found !== undefined) return found;
  const value = create();
  diagnostics.subscribe(channelName(name), (request) => {
    (request as Request).value ??= value;
  });
  return value;
}

/** Under this name lectern's server says it owns the process's runtime (lib/runtime): instrumentation-node.ts then starts none. */
export const SERVER_RUNTIME = 'server-runtime';
