import type { Post } from '../content';
import { lastChanged } from '../content/dates';
import { linkHeader } from './links';
import { markdownResponse } from './responses';

/** A post's source file, byte for byte, pointing at its HTML page as canonical. */
export function markdownPostResponse(post: Post): Response {
  return markdownResponse(post.source, { lastModified: lastChanged(post), headers: { Link: linkHeader(post.url, 'canonical', 'text/html') } });
}
