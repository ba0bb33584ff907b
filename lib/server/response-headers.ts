import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { markdownTwinOf } from '../http/markdown-twins';

/** A page with a markdown twin: its body depends on `Accept`. */
export function isNegotiatedPath(pathname: string): boolean {
  return markdownTwinOf(pathname) !== undefined;
}

/** Headers Next uses internally; they reveal rewrite targets and say nothing to clients. */
export const INTERNAL_HEADERS = ['x-middleware-rewrite', 'x-nextjs-prerender', 'x-nextjs-stale-time', 'x-nextjs-cache'];

export function addVaryAccept(value: unknown): string {
  const list = (Array.isArray(value) ? value.join(',') : typeof value === 'string' ? value : '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (list.includes('*') || list.some((item) => item.toLowerCase() === 'accept')) return list.join(', ');
  return [...list, 'Accept'].join(', ');
}

/**
 * Moves the reason phrase and headers given to `writeHead(status, ...rest)` onto the
 * response (a flat name/value list or an object), so later changes see one set; returns the reason.
 */
export function applyWriteHeadArgs(res: ServerResponse, rest: unknown[]): string | undefined {
  let reason: string | undefined;
  for (const arg of rest) {
    if (typeof arg === 'string') reason = arg;
    else if (Array.isArray(arg)) {
      for (let i = 0; i + 1 < arg.length; i += 2) res.appendHeader(String(arg[i]), arg[i + 1] as string);
    } else if (arg && typeof arg === 'object') {
      for (const [name, value] of Object.entries(arg as OutgoingHttpHeaders)) if (value !== undefined) res.setHeader(name, value);
    }
  }
  return reason;
}

/**
 * Adjusts the head of every response at the last moment, whatever path in Next
 * wrote it: internal headers go, and on negotiated URLs `Vary` keeps `Accept`
 * (Next 16 replaces the `Vary` of prerendered pages with its own, and a cache
 * would then serve markdown to browsers).
 */
export function adjustResponseHead(res: ServerResponse, options: { varyAccept: boolean }): void {
  const writeHead: (statusCode: number, reason?: string) => ServerResponse = res.writeHead;
  res.writeHead = function adjustedWriteHead(this: ServerResponse, statusCode: number, ...rest: unknown[]) {
    const reason = applyWriteHeadArgs(this, rest);
    for (const name of INTERNAL_HEADERS) this.removeHeader(name);
    if (options.varyAccept) this.setHeader('Vary', addVaryAccept(this.getHeader('vary')));
    return reason === undefined ? writeHead.call(this, statusCode) : writeHead.call(this, statusCode, reason);
  } as typeof res.writeHead;
}
