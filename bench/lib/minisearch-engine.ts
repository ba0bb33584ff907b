// The search engine lectern used before its own index (lib/search/index.ts), kept for `npm run bench -- search`
// to compare against: MiniSearch with the same fields, boosts, stop words, prefix and typo rules. With
// `topK`, the best `limit` results are picked in one pass instead of sorting every match.
import MiniSearch, { type SearchResult } from 'minisearch';
import type { Post } from '../../lib/content/load';
import { markdownToPlainText } from '../../lib/search/plain-text';

/** What the index reads of a post. */
export type SearchablePost = Pick<Post, 'slug' | 'title' | 'description' | 'tags' | 'body'>;

export type SearchHit<P extends SearchablePost> = { post: P; score: number; snippet: string };

export type SearchIndex<P extends SearchablePost> = {
  readonly size: number;
  /** At most `limit` posts matching every word of `query` (each word also as a prefix, longer ones with a typo), best first. */
  search(query: string, limit: number): { total: number; hits: SearchHit<P>[] };
};

/** About how long a snippet is, in characters (cut at word boundaries). */
export const SNIPPET_LENGTH = 160;
/** How much of the snippet comes before the first match. */
const LEAD = 50;

const FIELDS = ['title', 'tags', 'description', 'body'] as const;
/** A word in the title or a tag says more about a post than the same word in its text. */
const BOOST = { title: 4, tags: 3, description: 2, body: 1 };

const NON_ASCII = /[^\x00-\x7f]/;
const MARKS = /\p{M}/gu;

/** Lowercase without accents, so `cafe` finds `Café`. */
function foldTerm(term: string): string {
  return NON_ASCII.test(term) ? term.normalize('NFD').replace(MARKS, '').toLowerCase() : term.toLowerCase();
}

/**
 * English words too common to tell posts apart: indexed, each would match
 * nearly every post, and a search must score every post a word matches.
 */
const STOP_WORDS = new Set(
  'a an and are as at be but by for from has have if in into is it its of on or so than that the their then there these this to was were will with'.split(' '),
);

/** A word as indexed and searched: folded, or dropped when it is a stop word. */
function indexTerm(term: string): string | null {
  const folded = foldTerm(term);
  return STOP_WORDS.has(folded) ? null : folded;
}

/** The same fold, keeping every character at its index, so a match found in the folded text is at the same place in the text. */
function foldText(text: string): string {
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  let folded = '';
  for (const char of text) {
    const candidate = foldTerm(char);
    folded += candidate.length === char.length ? candidate : char;
  }
  return folded;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Index of the first occurrence of `term` that starts a word, or -1. */
function wordStart(folded: string, term: string): number {
  for (let at = folded.indexOf(term); at !== -1; at = folded.indexOf(term, at + 1)) {
    if (at === 0 || !WORD_CHAR.test(folded[at - 1]!)) return at;
  }
  return -1;
}

/** About SNIPPET_LENGTH characters of `text` around its first match of any of `terms`, cut at spaces, with … where cut. */
export function snippet(text: string, terms: readonly string[]): string {
  if (text.length <= SNIPPET_LENGTH) return text;
  const folded = foldText(text);
  const first = Math.min(...terms.map((term) => wordStart(folded, term)).filter((at) => at !== -1), Number.POSITIVE_INFINITY);
  let start = Number.isFinite(first) ? Math.max(0, first - LEAD) : 0;
  if (start + SNIPPET_LENGTH > text.length) start = Math.max(0, text.length - SNIPPET_LENGTH);
  if (start > 0) {
    const space = text.indexOf(' ', start);
    start = space === -1 || (Number.isFinite(first) && space >= first) ? start : space + 1;
  }
  let end = Math.min(text.length, start + SNIPPET_LENGTH);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start) end = space;
  }
  return `${start > 0 ? '…' : ''}${text.slice(start, end).trim()}${end < text.length ? '…' : ''}`;
}

/**
 * Builds the search index of `posts` (given newest first: equal scores keep
 * that order). Pure: the caller decides which posts are searchable. The index
 * keeps the posts by reference, and the plain text of each for its snippets.
 */
export function buildMiniSearchIndex<P extends SearchablePost>(posts: readonly P[], { topK = false } = {}): SearchIndex<P> {
  // The text of each post is kept: making it again for every result would cost more than the query.
  const bySlug = new Map(posts.map((post, order) => [post.slug, { post, order, text: markdownToPlainText(post.body) }]));
  const index = new MiniSearch<P>({
    idField: 'slug',
    fields: [...FIELDS],
    extractField: (post, field) => {
      if (field === 'slug') return post.slug;
      if (field === 'tags') return post.tags.join(' ');
      if (field === 'body') return bySlug.get(post.slug)?.text;
      return post[field as 'title' | 'description'];
    },
    processTerm: indexTerm,
    searchOptions: {
      boost: BOOST,
      combineWith: 'AND',
      // The last word may be unfinished (`cach` finds `caching`), from three letters on; a word of five letters or more may have one typo.
      prefix: (term, index, terms) => index === terms.length - 1 && term.length >= 3,
      fuzzy: (term) => (term.length >= 5 ? 0.2 : false),
      maxFuzzy: 1,
    },
  });
  index.addAll(posts);

  return {
    size: posts.length,
    search(query, limit) {
      const better = (a: SearchResult, b: SearchResult) => b.score - a.score || bySlug.get(a.id as string)!.order - bySlug.get(b.id as string)!.order;
      const results = index.search(query);
      let best: SearchResult[];
      if (topK) {
        best = [];
        for (const result of results) {
          if (best.length === limit && better(result, best[best.length - 1]!) >= 0) continue;
          let at = best.length;
          while (at > 0 && better(result, best[at - 1]!) < 0) at -= 1;
          best.splice(at, 0, result);
          if (best.length > limit) best.pop();
        }
      } else {
        best = results.sort(better).slice(0, limit);
      }
      const hits = best.map((result) => {
        const { post, text } = bySlug.get(result.id as string)!;
        return { post, score: result.score, snippet: snippet(text || post.description, result.terms) };
      });
      return { total: results.length, hits };
    },
  };
}
