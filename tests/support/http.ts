import { inject } from 'vitest';

export function url(pathname: string): string {
  return `${inject('baseUrl')}${pathname}`;
}

export function get(pathname: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  return fetch(url(pathname), { headers, method, redirect: 'manual' });
}

/** The `Vary` header as a lowercase list. */
export function varyOf(response: Response): string[] {
  return (response.headers.get('vary') ?? '').split(',').map((item) => item.trim().toLowerCase());
}
