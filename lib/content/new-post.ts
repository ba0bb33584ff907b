import { stringify } from 'yaml';
import { SLUG_PATTERN } from './schema';

/**
 * A post's slug from its title, by the schema's rule (lowercase letters and
 * digits joined by single hyphens): accents dropped, everything else a
 * separator. Undefined when nothing of the title is left.
 */
export function slugFromTitle(title: string): string | undefined {
  const slug = title
    .normalize('NFKD')
    .replace(/\p{Mn}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return SLUG_PATTERN.test(slug) ? slug : undefined;
}

export const DESCRIPTION_PLACEHOLDER = 'One sentence on what the reader gets from this post (at most 300 characters).';

/**
 * The file `npm run new-post` writes: valid frontmatter, a draft dated `date`, and a first
 * section to fill in. A blank line closes the frontmatter, so its markdown twin shows it as a
 * paragraph between two rules, never as a heading (lib/content/frontmatter.ts).
 */
export function newPostSource(title: string, date: string): string {
  const frontmatter = stringify({ title: title.trim(), description: DESCRIPTION_PLACEHOLDER, date, tags: [], draft: true });
  return `---\n${frontmatter}\n---\n## First section\n\nWrite here. Remove \`draft: true\` to publish.\n`;
}
