import fs from 'node:fs';
import path from 'node:path';
import rehypeShiki from '@shikijs/rehype';
import type { Element, Root } from 'hast';
import { toString } from 'hast-util-to-string';
import { imageSize } from 'image-size';
import rehypeAutolinkHeadings from 'rehype-autolink-headings';
import rehypeRaw from 'rehype-raw';
import rehypeSanitize from 'rehype-sanitize';
import rehypeSlug from 'rehype-slug';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified, type Plugin } from 'unified';
import { visit } from 'unist-util-visit';
import { absoluteUrls } from './absolute-urls';
import { kept } from './build-cache';
import { SANITIZE_SCHEMA } from './sanitize';
import { CODE_THEMES, codeClasses } from './code-theme';

export type TocEntry = { depth: 2 | 3; id: string; text: string };
export type Rendered = { html: string; toc: TocEntry[]; readingMinutes: number; words: number };

const WORDS_PER_MINUTE = 230;
const PUBLIC_DIR = path.resolve('public');

/** Table of contents, word count: read off the finished tree. */
const collectFacts: Plugin<[Rendered], Root> = (facts) => (tree) => {
  visit(tree, 'element', (node: Element) => {
    if ((node.tagName === 'h2' || node.tagName === 'h3') && typeof node.properties.id === 'string') {
      facts.toc.push({ depth: node.tagName === 'h2' ? 2 : 3, id: node.properties.id, text: toString(node).trim() });
    }
  });
  facts.words = toString(tree).split(/\s+/).filter(Boolean).length;
  facts.readingMinutes = Math.max(1, Math.round(facts.words / WORDS_PER_MINUTE));
};

/**
 * Shiki's inline colour styles become classes (lib/content/code-theme.ts), so
 * pages need no inline styles and keep a strict Content-Security-Policy.
 */
const codeStylesToClasses: Plugin<[], Root> = () => (tree) => {
  visit(tree, 'element', (node: Element) => {
    const style = node.properties.style;
    if (typeof style !== 'string' || !style.includes('--shiki-')) return;
    // Shiki writes `class` as a string; rehype's own nodes use a `className` list.
    const { class: written, className, ...rest } = node.properties;
    delete rest.style;
    const existing = [...(Array.isArray(className) ? className : []), ...(typeof written === 'string' ? written.split(/\s+/).filter(Boolean) : [])];
    const classes = [...existing, ...codeClasses(style)];
    node.properties = classes.length > 0 ? { className: classes, ...rest } : rest;
  });
};

/**
 * Tables scroll sideways on their own when they are wider than the column
 * (narrow phones), inside a focusable region so keyboard users can scroll them
 * too, named after the table's column headings.
 */
const scrollableTables: Plugin<[], Root> = () => (tree) => {
  visit(tree, 'element', (node: Element, index, parent) => {
    if (node.tagName !== 'table' || !parent || index === undefined) return;
    const headings: string[] = [];
    visit(node, 'element', (cell: Element) => {
      if (cell.tagName === 'th') headings.push(toString(cell).trim());
    });
    const label = headings.filter(Boolean).length > 0 ? `Table: ${headings.filter(Boolean).join(', ')}` : 'Table';
    parent.children[index] = {
      type: 'element',
      tagName: 'div',
      properties: { className: ['table-wrap'], role: 'region', ariaLabel: label, tabIndex: 0 },
      children: [node],
    };
    return 'skip';
  });
};

/**
 * Local images get their intrinsic width and height (no layout shift) and lazy
 * loading. Only files inside public/ are read; anything else is left alone.
 */
const sizeLocalImages: Plugin<[], Root> = () => (tree) => {
  visit(tree, 'element', (node: Element) => {
    if (node.tagName !== 'img') return;
    node.properties.loading = 'lazy';
    node.properties.decoding = 'async';
    const src = node.properties.src;
    if (typeof src !== 'string' || !src.startsWith('/') || src.startsWith('//')) return;
    const file = path.resolve(PUBLIC_DIR, `.${decodeURIComponent(src.split(/[?#]/)[0] ?? '')}`);
    if (!file.startsWith(PUBLIC_DIR + path.sep) || !fs.existsSync(file)) return;
    try {
      const { width, height } = imageSize(fs.readFileSync(file));
      if (width && height) Object.assign(node.properties, { width, height });
    } catch {
      // Not an image format image-size knows: leave the tag as written.
    }
  });
};

export type RenderOptions = {
  /** For HTML read away from the site (feeds): every URL resolved against this one, the page the text is shown on. */
  baseUrl?: string;
};

function processor(facts: Rendered, { baseUrl }: RenderOptions) {
  const base = unified()
    .use(remarkParse)
    .use(remarkGfm)
    // Raw HTML is parsed, then sanitized with GitHub's schema: kept if harmless, never executed.
    .use(remarkRehype, { allowDangerousHtml: true })
    .use(rehypeRaw)
    .use(rehypeSanitize, SANITIZE_SCHEMA)
    .use(rehypeSlug)
    .use(rehypeAutolinkHeadings, { behavior: 'wrap', properties: { className: ['heading-link'] } })
    .use(rehypeShiki, {
      themes: CODE_THEMES,
      defaultColor: false,
      // Each language's grammar is loaded the first time a post uses it. Without `langs`, the
      // highlighter loads all of Shiki's 300 grammars first: 15 s of CPU in every build worker.
      langs: [],
      lazy: true,
      fallbackLanguage: 'text',
    })
    .use(codeStylesToClasses)
    .use(scrollableTables)
    .use(sizeLocalImages)
    .use(collectFacts, facts);
  // After sizeLocalImages, which reads root-relative image paths from public/.
  return (baseUrl === undefined ? base : base.use(absoluteUrls, baseUrl)).use(rehypeStringify);
}

/**
 * The texts rendered last. A page and the feed ask for the same text more than once;
 * a build of thousands of posts must not keep every one of them.
 */
const RECENT = 128;
const rendered = new Map<string, Promise<Rendered>>();

/** Markdown to safe HTML with highlighted code, heading anchors and a table of contents. Memoized for recent texts. */
export function renderMarkdown(markdown: string, options: RenderOptions = {}): Promise<Rendered> {
  // A base URL never holds a line break, so the two kinds of key cannot meet.
  const key = options.baseUrl === undefined ? `-${markdown}` : `+${options.baseUrl}\n${markdown}`;
  let result = rendered.get(key);
  if (result) {
    rendered.delete(key);
  } else {
    result = keptOrRendered(key, markdown, options);
  }
  rendered.set(key, result);
  if (rendered.size > RECENT) rendered.delete(rendered.keys().next().value as string);
  return result;
}

function render(markdown: string, options: RenderOptions): Promise<Rendered> {
  const facts: Rendered = { html: '', toc: [], readingMinutes: 1, words: 0 };
  return processor(facts, options)
    .process(markdown)
    .then((file) => ({ ...facts, html: String(file) }));
}

/** A render kept between builds (lib/content/build-cache.ts), keyed by the text and the base URL. */
async function keptOrRendered(key: string, markdown: string, options: RenderOptions): Promise<Rendered> {
  const bytes = await kept('render', key, async () => Buffer.from(JSON.stringify(await render(markdown, options))));
  return JSON.parse(bytes.toString('utf8')) as Rendered;
}
