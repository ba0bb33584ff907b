import { z } from 'zod';
import { publishedPosts, type Post } from '../content';
import { latestPosts } from '../content/source';

/** The query of `/api/blog`, as its route reads it (lib/http/query.ts). */
export const blogQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^[0-9]*[1-9][0-9]*$/, 'must be a positive integer')
    .transform((value) => Number(value))
    .optional()
    .describe('Return at most this many posts (a positive integer; above the count returns all).'),
});

export const blogEntrySchema = z.object({
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  date: z.string(),
  updated: z.string().optional(),
  tags: z.array(z.string()),
  url: z.url(),
  markdownUrl: z.url(),
});
export const blogListSchema = z.object({ posts: z.array(blogEntrySchema) });
export type BlogList = z.infer<typeof blogListSchema>;

function entry(post: Post): z.infer<typeof blogEntrySchema> {
  return {
    slug: post.slug,
    title: post.title,
    description: post.description,
    date: post.date,
    ...(post.updated === undefined ? {} : { updated: post.updated }),
    tags: post.tags,
    url: post.url,
    markdownUrl: post.markdownUrl,
  };
}

export function blogList(limit?: number): BlogList {
  return { posts: (limit === undefined ? publishedPosts() : latestPosts(limit)).map(entry) };
}
