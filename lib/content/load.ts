import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { z } from 'zod';
import { splitFrontmatter } from './frontmatter';
import {
  DELIVERABLES_FOLDER,
  SLUG_PATTERN,
  appFrontmatterSchema,
  dateToMillis,
  homeFrontmatterSchema,
  postFrontmatterSchema,
  productFrontmatterSchema,
  siteSchema,
  welcomeFrontmatterSchema,
  type AppFrontmatter,
  type PostFrontmatter,
  type ProductFrontmatter,
  type Site,
} from './schema';

export type ContentProblem = { file: string; key: string; message: string };

/** Every problem of every content file, reported at once. */
export class ContentError extends Error {
  constructor(readonly problems: ContentProblem[]) {
    super(
      `Content has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n` +
        problems.map((p) => `  ${p.file}${p.key ? ` › ${p.key}` : ''}: ${p.message}`).join('\n'),
    );
    this.name = 'ContentError';
  }
}

export type Post = PostFrontmatter & {
  slug: string;
  /** The file exactly as the author wrote it (served as markdown). */
  source: string;
  body: string;
  dateMillis: number;
  updatedMillis: number | undefined;
};
export type Home = { title: string; description: string; source: string; body: string };
export type App = AppFrontmatter & { slug: string; body: string };
export type Product = ProductFrontmatter & { slug: string; body: string };
/** The welcome mail the author wrote (WELCOME_FILE), if any. */
export type Welcome = { subject: string; body: string };
export type Content = { site: Site; home: Home; posts: Post[]; apps: App[]; products: Product[]; welcome?: Welcome };

/** The newsletter's welcome mail, in the content folder: optional (no file, no welcome mail). */
export const WELCOME_FILE = 'newsletter-welcome.md';

type Entry<T> = { slug: string; data: T; source: string; body: string };

class Collector {
  readonly problems: ContentProblem[] = [];
  constructor(private readonly root: string) {}

  relative(file: string): string {
    return path.relative(process.cwd(), file) || file;
  }

  add(file: string, key: string, message: string): void {
    this.problems.push({ file: this.relative(file), key, message });
  }

  validate<S extends z.ZodType>(file: string, schema: S, data: unknown): z.infer<S> | undefined {
    const result = schema.safeParse(data);
    if (result.success) return result.data;
    for (const issue of result.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) this.add(file, [...issue.path, key].join('.'), 'is not a known key');
      } else {
        this.add(file, issue.path.join('.'), issue.message);
      }
    }
    return undefined;
  }

  /** Reads every `<slug>.md` of a folder; other names are problems, never silently skipped. */
  markdownFolder<S extends z.ZodType>(folder: string, schema: S, required: boolean): Entry<z.infer<S>>[] {
    const dir = path.join(this.root, folder);
    if (!fs.existsSync(dir)) {
      if (required) this.add(dir, '', 'folder is missing');
      return [];
    }
    const entries: Entry<z.infer<S>>[] = [];
    for (const name of fs.readdirSync(dir).sort()) {
      const file = path.join(dir, name);
      if (name.startsWith('.') || !fs.statSync(file).isFile()) continue;
      const slug = name.replace(/\.md$/, '');
      if (!name.endsWith('.md')) {
        this.add(file, '', 'is not a .md file; content folders hold only <slug>.md files');
        continue;
      }
      if (!SLUG_PATTERN.test(slug)) {
        this.add(file, '', `file name "${slug}" is not a valid slug (lowercase letters and digits joined by single hyphens)`);
        continue;
      }
      const entry = this.markdownFile(file, schema);
      if (entry) entries.push({ slug, ...entry });
    }
    return entries;
  }

  markdownFile<S extends z.ZodType>(file: string, schema: S): Omit<Entry<z.infer<S>>, 'slug'> | undefined {
    const source = fs.readFileSync(file, 'utf8');
    let split;
    try {
      split = splitFrontmatter(source);
    } catch (error) {
      this.add(file, '', (error as Error).message);
      return undefined;
    }
    const data = this.validate(file, schema, split.data);
    return data === undefined ? undefined : { data, source, body: split.body };
  }

  site(): Site | undefined {
    const file = path.join(this.root, 'site.yaml');
    if (!fs.existsSync(file)) {
      this.add(file, '', 'file is missing');
      return undefined;
    }
    let data: unknown;
    try {
      data = parse(fs.readFileSync(file, 'utf8'), { uniqueKeys: true });
    } catch (error) {
      this.add(file, '', `is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
      return undefined;
    }
    return this.validate(file, siteSchema, withoutReuse(file, data));
  }
}

let warnedReuse = false;

/**
 * site.yaml's `reuse` key, from before the terms for agents were one statement (lib/agents/terms.ts):
 * taken and ignored, with a warning (once per process) that says where the rule now is, so a site
 * that still has it builds. Its words would otherwise say one thing while robots.txt, the licence
 * and the Content-Usage header say another.
 */
function withoutReuse(file: string, data: unknown): unknown {
  if (typeof data !== 'object' || data === null || Array.isArray(data) || !('reuse' in data)) return data;
  if (!warnedReuse) {
    warnedReuse = true;
    console.warn(
      `${file}: \`reuse\` is ignored: the reuse rule is part of the site's terms for agents, stated once in lib/agents/terms.ts (footer, llms.txt, robots.txt, /license.xml and the Content-Usage header are made from it). Remove the key to silence this warning.`,
    );
  }
  return Object.fromEntries(Object.entries(data).filter(([key]) => key !== 'reuse'));
}

/** Slugs a post cannot have: `/blog/page/{n}` are the later pages of /blog, and would hide the post's markdown URL. */
const RESERVED_POST_SLUGS = new Set(['page']);

/** Loads and validates the whole content folder; throws one ContentError listing every problem. */
export function loadContent(root: string): Content {
  const collect = new Collector(root);
  const site = collect.site();
  const homeFile = path.join(root, 'home.md');
  const home = fs.existsSync(homeFile) ? collect.markdownFile(homeFile, homeFrontmatterSchema) : undefined;
  if (!fs.existsSync(homeFile)) collect.add(homeFile, '', 'file is missing');
  const welcomeFile = path.join(root, WELCOME_FILE);
  const welcome = fs.existsSync(welcomeFile) ? collect.markdownFile(welcomeFile, welcomeFrontmatterSchema) : undefined;
  const posts = collect.markdownFolder('posts', postFrontmatterSchema, true).map(({ slug, data, source, body }): Post => ({
    ...data,
    slug,
    source,
    body,
    dateMillis: dateToMillis(data.date, site?.timezone),
    updatedMillis: data.updated === undefined ? undefined : dateToMillis(data.updated, site?.timezone),
  }));
  for (const post of posts) {
    if (RESERVED_POST_SLUGS.has(post.slug)) {
      collect.add(
        path.join(root, 'posts', `${post.slug}.md`),
        '',
        `file name "${post.slug}" is reserved: /blog/${post.slug}/2 and on are the later pages of /blog`,
      );
    }
  }
  const apps = collect.markdownFolder('apps', appFrontmatterSchema, false).map(({ slug, data, body }) => ({ ...data, slug, body }));
  const products = collect
    .markdownFolder('products', productFrontmatterSchema, false)
    .map(({ slug, data, body }) => ({ ...data, slug, body }))
    .sort((a, b) => a.order - b.order || a.slug.localeCompare(b.slug));
  checkDeliverables(collect, root, products);

  if (collect.problems.length > 0 || !site || !home) throw new ContentError(collect.problems);
  return {
    site,
    home: { ...home.data, source: home.source, body: home.body },
    posts,
    apps,
    products,
    ...(welcome ? { welcome: { subject: welcome.data.subject, body: welcome.body } } : {}),
  };
}

/**
 * Every file a product names is a regular file under the content folder's deliverables/, and
 * every product an offer includes is a book or a bundle of the folder: a build fails naming the
 * product and the path otherwise, so no buyer is mailed a link to nothing.
 */
function checkDeliverables(collect: Collector, root: string, products: Product[]): void {
  const folder = path.join(root, DELIVERABLES_FOLDER);
  for (const product of products) {
    const file = path.join(root, 'products', `${product.slug}.md`);
    if (product.kind === 'training') continue;
    product.files.forEach((name, index) => {
      const full = path.join(folder, name);
      const stat = fs.statSync(full, { throwIfNoEntry: false });
      if (!stat?.isFile()) collect.add(file, `files.${index}`, `${path.join(DELIVERABLES_FOLDER, name)} is not a file in the content folder`);
    });
    if (product.kind !== 'offer') continue;
    product.includes.forEach((slug, index) => {
      const included = products.find((entry) => entry.slug === slug);
      if (!included || (included.kind !== 'book' && included.kind !== 'bundle'))
        collect.add(file, `includes.${index}`, `"${slug}" is not a book or bundle in products/`);
    });
  }
}

/** Published: not a draft, and dated no later than `now`. */
export function isPublished(post: Pick<Post, 'draft' | 'dateMillis'>, now: number): boolean {
  return !post.draft && post.dateMillis <= now;
}

/** Newest first: date descending, ties by slug ascending. */
export function newestFirst(a: Pick<Post, 'dateMillis' | 'slug'>, b: Pick<Post, 'dateMillis' | 'slug'>): number {
  return b.dateMillis - a.dateMillis || (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0);
}
