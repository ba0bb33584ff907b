import { z } from 'zod';
import { publishedPosts, type Post } from '../content';
import { latestPosts } from '../content/source';

/** `limit`: a positive integer in decimal digits, given at most once. */
export const blogQuerySchema = z.object({
  limit: z
    .array(z.string())
    .max(1, 'must be given at most once')
    .transform((values) => values[0])
    .pipe(
      z
        .string()
        .regex(/^\d+$/, 'must be a positive integer')
        .transform((value) => Number(value))
        .refine((value) => value >= 1, 'must be a positive integer')
        .optional(),
    ),
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
