import * as registry from './registry';

export type AnyWriteRoute = (typeof registry)[keyof typeof registry];
export type WriteRoute = AnyWriteRoute['name'];

/** Every write route of ./registry.ts, in the order of their paths (as /openapi.json and the docs page list them). */
export const writeRoutes: readonly AnyWriteRoute[] = Object.values(registry).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

/** The write route answering at a path, if one does. */
export function writeRouteAt(path: string): AnyWriteRoute | undefined {
  return writeRoutes.find((route) => route.path === path);
}
