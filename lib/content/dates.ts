import type { Post } from './load';

/** When a post last changed: `updated`, else `date`. */
export function lastChanged(post: Pick<Post, 'dateMillis' | 'updatedMillis'>): number {
  return post.updatedMillis ?? post.dateMillis;
}

/** The latest change among posts, or undefined for none. */
export function newestChange(posts: readonly Pick<Post, 'dateMillis' | 'updatedMillis'>[]): number | undefined {
  let newest: number | undefined;
  for (const post of posts) newest = Math.max(newest ?? 0, lastChanged(post));
  return newest;
}

/** W3C date-time with seconds, in UTC: 2025-01-10T00:00:00+00:00. */
export function w3cDateTime(millis: number): string {
  return new Date(millis).toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
