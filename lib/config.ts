import { settings } from './settings';

/** An absolute URL on this site (SITE_URL) for a root-relative path. */
export function absoluteUrl(pathname: string): string {
  return `${settings().site.url}${pathname.startsWith('/') ? pathname : `/${pathname}`}`;
}
