import type { Post } from '../content/load';
import { markdownToSections, type SectionedText } from './sections';
import { foldText, queryWords, STOP_WORDS, WORD_CHAR, words } from './text';

/** What the index reads of a post. */
export type SearchablePost = Pick<Post, 'slug' | 'title' | 'description' | 'tags' | 'body'>;

/** A matched word in a snippet: `snippet.slice(start, end)`. */
export type Mark = { start: number; end: number };

/** Where a post matches best: the `##`/`###` section (null before the first heading, or when only the title, tags or description match), and a snippet of it with its matched words. */
export type Passage = { section: { heading: string; id: string } | null; snippet: string; marks: Mark[] };

export type SearchHit<P extends SearchablePost> = Passage & { post: P; score: number };

export type SearchIndex<P extends SearchablePost> = {
  readonly size: number;
  /** At most `limit` posts matching every word of `query` (the last also as a prefix, longer ones with a typo), best first. */
  search(query: string, limit: number): { total: number; hits: SearchHit<P>[] };
};

/** About how long a snippet is, in characters (cut at word boundaries). */
export const SNIPPET_LENGTH = 160;
/** How much of the snippet comes before the first match. */
const LEAD = 50;

/**
 * What one search may cost, whatever the query: each bound caps the postings
 * read (the work of a search is the number of (word, post) pairs it reads).
 */
export const SEARCH_BOUNDS = {
  /** Different words searched for (stop words and repeats not counted); lib/search/site.ts refuses more. */
  words: 10,
  /** Indexed words an unfinished last word stands for: the most frequent of the first `prefixScan` it starts. */
  prefixTerms: 30,
  prefixScan: 2000,
  /** Indexed words one typo away that a word stands for, the most frequent first. */
  typoTerms: 10,
  /** Words longer than this get no typo: their one-edit variants are many, and a long word is rarely mistyped into another. */
  typoMaxLength: 24,
  /** Postings the variants (prefix, typo) of one word may add, in posts of the index. */
  variantPostings: 2,
} as const;

/** Fields and their weight: a word in the title or a tag says more about a post than the same word in its text. */
const BOOSTS = [4, 3, 2, 1] as const; // title, tags, description, body
const FIELDS = BOOSTS.length;
/** BM25's saturation and length normalisation. */
const K1 = 1.2;
const B = 0.7;
/** A word found by its prefix or through a typo counts for less than the word itself. */
const PREFIX_WEIGHT = 0.4;
const TYPO_WEIGHT = 0.45;
const MAX_TF = 127;
const TYPO_LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';
/** Occurrences of one indexed word looked at in one post, for the passage. */
const OCCURRENCES_PER_TERM = 64;

const EMPTY = new Int32Array(0);

/** One indexed word a query word stands for, and how much it counts. */
type Variant = { term: number; weight: number };

function lowerBound(sorted: readonly string[], value: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Every string one edit (deletion, transposition, substitution, insertion of a letter or digit) away from `word`. */
function oneEditAway(word: string): Set<string> {
  const found = new Set<string>();
  for (let i = 0; i <= word.length; i += 1) {
    const head = word.slice(0, i);
    if (i < word.length) {
      found.add(head + word.slice(i + 1));
      if (i + 1 < word.length) found.add(head + word[i + 1]! + word[i]! + word.slice(i + 2));
    }
    for (const letter of TYPO_LETTERS) {
      if (i < word.length) found.add(head + letter + word.slice(i + 1));
      found.add(head + letter + word.slice(i));
    }
  }
  found.delete(word);
  return found;
}

/**
 * Builds the search index of `posts` (given newest first: equal scores keep
 * that order). Pure: the caller decides which posts are searchable. An
 * inverted index in typed arrays: for each indexed word, the posts holding it
 * and its BM25 weight in each (fields boosted), computed here once, so a
 * search only adds up numbers. The index keeps the posts by reference, and
 * the plain text of each, cut into its sections, for the passages.
 */
export function buildSearchIndex<P extends SearchablePost>(posts: readonly P[]): SearchIndex<P> {
  const steps = indexing(posts);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * The same index, built in slices of about `sliceMs` of work with the event
 * loop free between them: a server that must index a new list of posts while
 * it answers readers builds it this way, and no request waits for all of it.
 */
export async function buildSearchIndexInSlices<P extends SearchablePost>(posts: readonly P[], sliceMs = 5): Promise<SearchIndex<P>> {
  const steps = indexing(posts);
  let started = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - started >= sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      started = performance.now();
    }
  }
}

/** The work of building the index, yielding after each post read and every 200 posts written out. */
function* indexing<P extends SearchablePost>(posts: readonly P[]): Generator<void, SearchIndex<P>> {
  const count = posts.length;
  const texts: SectionedText[] = [];
  const lengths = new Float64Array(count * FIELDS);
  const fieldTotals = new Float64Array(FIELDS);
  // First pass: each post's words as numbers (in the order first met), with their count in each field
  // packed in one number (7 bits a field), in typed arrays: the collector has little to trace.
  const met = new Map<string, number>();
  const frequencies: number[] = [];
  const postTerms: Int32Array[] = [];
  const postCounts: Int32Array[] = [];
  const perPost = new Map<number, number>();
  for (let doc = 0; doc < count; doc += 1) {
    const post = posts[doc]!;
    const sectioned = markdownToSections(post.body);
    texts.push(sectioned);
    const fields = [post.title, post.tags.join(' '), post.description, sectioned.text];
    perPost.clear();
    for (let field = 0; field < FIELDS; field += 1) {
      let length = 0;
      for (const word of words(fields[field]!)) {
        if (STOP_WORDS.has(word)) continue;
        length += 1;
        let id = met.get(word);
        if (id === undefined) {
          id = met.size;
          met.set(word, id);
          frequencies.push(0);
        }
        const packed = perPost.get(id) ?? 0;
        if (((packed >>> (7 * field)) & MAX_TF) < MAX_TF) perPost.set(id, packed + (1 << (7 * field)));
      }
      lengths[doc * FIELDS + field] = length;
      fieldTotals[field] = fieldTotals[field]! + length;
    }
    const ids = new Int32Array(perPost.size);
    const counts = new Int32Array(perPost.size);
    let i = 0;
    for (const [id, packed] of perPost) {
      ids[i] = id;
      counts[i++] = packed;
      frequencies[id] = frequencies[id]! + 1;
    }
    postTerms.push(ids);
    postCounts.push(counts);
    yield;
  }

  // The words in order (for prefixes), each word's postings in one pair of typed arrays, posts in order.
  const terms = [...met.keys()].sort();
  const termIds = new Map(terms.map((term, id) => [term, id]));
  const sortedId = new Int32Array(terms.length);
  for (const [term, first] of met) sortedId[first] = termIds.get(term)!;
  met.clear();
  const offsets = new Int32Array(terms.length + 1);
  for (let first = 0; first < sortedId.length; first += 1) offsets[sortedId[first]! + 1] = frequencies[first]!;
  for (let id = 0; id < terms.length; id += 1) offsets[id + 1] = offsets[id + 1]! + offsets[id]!;
  const idfs = new Float64Array(terms.length);
  for (let id = 0; id < terms.length; id += 1) {
    const frequency = offsets[id + 1]! - offsets[id]!;
    idfs[id] = Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
  }
  const averages = Array.from(fieldTotals, (total) => total / Math.max(1, count) || 1);
  const postings = new Int32Array(offsets[terms.length]!);
  const weights = new Float32Array(offsets[terms.length]!);
  const filled = offsets.slice(0, terms.length);
  for (let doc = 0; doc < count; doc += 1) {
    const ids = postTerms[doc]!;
    const counts = postCounts[doc]!;
    for (let i = 0; i < ids.length; i += 1) {
      const id = sortedId[ids[i]!]!;
      let weight = 0;
      for (let field = 0; field < FIELDS; field += 1) {
        const tf = (counts[i]! >>> (7 * field)) & MAX_TF;
        if (tf === 0) continue;
        const norm = 1 - B + (B * lengths[doc * FIELDS + field]!) / averages[field]!;
        weight += (BOOSTS[field]! * (tf * (K1 + 1))) / (tf + K1 * norm);
      }
      const at = filled[id]!;
      filled[id] = at + 1;
      postings[at] = doc;
      weights[at] = idfs[id]! * weight;
    }
    postTerms[doc] = EMPTY;
    postCounts[doc] = EMPTY;
    if (doc % 200 === 199) yield;
  }
  const frequency = (term: number) => offsets[term + 1]! - offsets[term]!;

  /** The indexed words `word` stands for: itself, then (bounded) the words it starts when it is the last, and those one typo away. */
  function variants(word: string, last: boolean): Variant[] {
    const found: Variant[] = [];
    const exact = termIds.get(word);
    if (exact !== undefined) found.push({ term: exact, weight: 1 });
    const others: Variant[] = [];
    if (last && word.length >= 3) {
      const started: number[] = [];
      const end = Math.min(terms.length, lowerBound(terms, word) + SEARCH_BOUNDS.prefixScan);
      for (let id = lowerBound(terms, word); id < end && terms[id]!.startsWith(word); id += 1) if (id !== exact) started.push(id);
      started.sort((a, b) => frequency(b) - frequency(a));
      for (const term of started.slice(0, SEARCH_BOUNDS.prefixTerms)) others.push({ term, weight: PREFIX_WEIGHT });
    }
    if (word.length >= 5 && word.length <= SEARCH_BOUNDS.typoMaxLength) {
      const near: number[] = [];
      for (const candidate of oneEditAway(word)) {
        const id = termIds.get(candidate);
        if (id !== undefined && !others.some((variant) => variant.term === id)) near.push(id);
      }
      near.sort((a, b) => frequency(b) - frequency(a));
      for (const term of near.slice(0, SEARCH_BOUNDS.typoTerms)) others.push({ term, weight: TYPO_WEIGHT });
    }
    // The variants read at most `variantPostings` times the posts of the index, the most frequent first.
    others.sort((a, b) => frequency(b.term) - frequency(a.term));
    let budget = SEARCH_BOUNDS.variantPostings * count;
    for (const variant of others) {
      if (frequency(variant.term) > budget) continue;
      budget -= frequency(variant.term);
      found.push(variant);
    }
    return found;
  }

  /** The weight of `term` in `doc`, or 0 (binary search in its postings). */
  function weightIn(term: number, doc: number): number {
    let low = offsets[term]!;
    let high = offsets[term + 1]!;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const found = postings[middle]!;
      if (found === doc) return weights[middle]!;
      if (found < doc) low = middle + 1;
      else high = middle;
    }
    return 0;
  }

  // Scratch space of the search, reused: a search runs start to end without yielding.
  const best = new Float32Array(count);
  const seen = new Int32Array(count);
  const scores = new Float32Array(count);
  const candidates = new Int32Array(count);
  let pass = 0;

  /** Reads every posting of `word`'s variants: seen[doc] = pass and best[doc] = its best weight there. */
  function scan(variants: Variant[]): void {
    pass += 1;
    if (pass === 2 ** 31 - 1) {
      seen.fill(0);
      pass = 1;
    }
    for (const { term, weight } of variants) {
      for (let at = offsets[term]!, end = offsets[term + 1]!; at < end; at += 1) {
        const doc = postings[at]!;
        const value = weight * weights[at]!;
        if (seen[doc] !== pass) {
          seen[doc] = pass;
          best[doc] = value;
        } else if (value > best[doc]!) best[doc] = value;
      }
    }
  }

  function passage(doc: number, matched: string[][]): Passage {
    const post = posts[doc]!;
    const sectioned = texts[doc]!;
    const text = sectioned.text || post.description;
    const sections = sectioned.text ? sectioned.sections : [];
    const folded = foldText(text);
    const found: { at: number; end: number; word: number }[] = [];
    matched.forEach((terms, word) => {
      for (const term of terms) {
        let kept = 0;
        for (let at = folded.indexOf(term); at !== -1 && kept < OCCURRENCES_PER_TERM; at = folded.indexOf(term, at + 1)) {
          const end = at + term.length;
          if ((at > 0 && WORD_CHAR.test(folded[at - 1]!)) || (end < folded.length && WORD_CHAR.test(folded[end]!))) continue;
          found.push({ at, end, word });
          kept += 1;
        }
      }
    });
    found.sort((a, b) => a.at - b.at);
    const sectionAt = (at: number) => {
      let index = -1;
      while (index + 1 < sections.length && sections[index + 1]!.start <= at) index += 1;
      return index;
    };
    // The section: the one holding the most words of the query, a word found in few sections of the post counting
    // more, a word of its heading more again, then the one where they are most frequent; the first on a tie.
    const bySection = new Map<number, { words: Set<number>; heading: Set<number>; count: number }>();
    for (const match of found) {
      const index = sectionAt(match.at);
      let entry = bySection.get(index);
      if (!entry) bySection.set(index, (entry = { words: new Set(), heading: new Set(), count: 0 }));
      entry.words.add(match.word);
      const section = sections[index];
      if (section?.heading != null && match.end <= section.start + section.heading.length) entry.heading.add(match.word);
      entry.count += 1;
    }
    const spread = matched.map((_, word) => [...bySection.values()].filter((entry) => entry.words.has(word)).length);
    let anchorSection = -1;
    let bestScore = 0;
    for (const [index, entry] of bySection) {
      let score = 0.25 * Math.min(entry.count, 8);
      for (const word of entry.words) score += 1 + 3 / spread[word]!;
      for (const word of entry.heading) score += 3 / spread[word]!;
      if (score > bestScore || (score === bestScore && index < anchorSection)) {
        bestScore = score;
        anchorSection = index;
      }
    }
    // In it, the match whose snippet holds the most different words of the query; the first on a tie.
    let anchor = -1;
    let most = 0;
    for (let i = 0; i < found.length; i += 1) {
      if (sectionAt(found[i]!.at) !== anchorSection) continue;
      const limit = Math.min(found[i]!.at + SNIPPET_LENGTH - LEAD, sections[anchorSection + 1]?.start ?? Number.POSITIVE_INFINITY);
      const distinct = new Set<number>();
      for (let j = i; j < found.length && found[j]!.end <= limit; j += 1) distinct.add(found[j]!.word);
      if (distinct.size > most) {
        most = distinct.size;
        anchor = found[i]!.at;
      }
    }
    // The snippet starts within the section, after its heading (which the result names) unless the match is in it.
    const { start: sectionStart = 0, heading = null } = sections[anchorSection] ?? {};
    const afterHeading = heading === null ? sectionStart : sectionStart + heading.length + 1;
    const floor = anchor >= afterHeading ? afterHeading : sectionStart;
    const { start, end } = cut(text, anchor === -1 ? undefined : anchor, floor);
    const lead = start > 0 ? 1 : 0;
    const marks = found
      .filter((match) => match.at >= start && match.end <= end)
      .map((match) => ({ start: match.at - start + lead, end: match.end - start + lead }));
    const section = sections[anchorSection];
    return {
      section: section?.heading != null && section.id != null ? { heading: section.heading, id: section.id } : null,
      snippet: `${lead ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`,
      marks,
    };
  }

  return {
    size: count,
    search(query, limit) {
      const given = queryWords(query).slice(0, SEARCH_BOUNDS.words);
      if (given.length === 0 || count === 0) return { total: 0, hits: [] };
      const lastWord = given[given.length - 1];
      const expanded = given.map((word) => variants(word, word === lastWord));
      const reads = (list: Variant[]) => list.reduce((sum, variant) => sum + frequency(variant.term), 0);
      // Every word must match: start from the word with the fewest postings.
      const order = expanded.map((_, i) => i).sort((a, b) => reads(expanded[a]!) - reads(expanded[b]!));
      let total = 0;
      for (const [step, word] of order.entries()) {
        const list = expanded[word]!;
        if (list.length === 0) return { total: 0, hits: [] };
        if (step === 0) {
          scan(list);
          for (const { term } of list)
            for (let at = offsets[term]!, end = offsets[term + 1]!; at < end; at += 1) {
              const doc = postings[at]!;
              if (seen[doc] === pass && best[doc]! >= 0) {
                candidates[total++] = doc;
                scores[doc] = best[doc]!;
                best[doc] = -1; // listed once
              }
            }
          continue;
        }
        let kept = 0;
        if (total * list.length * 16 < reads(list)) {
          // Few candidates left: look each up rather than read every posting of the word.
          for (let i = 0; i < total; i += 1) {
            const doc = candidates[i]!;
            let value = 0;
            for (const { term, weight } of list) value = Math.max(value, weight * weightIn(term, doc));
            if (value > 0) {
              scores[doc] = scores[doc]! + value;
              candidates[kept++] = doc;
            }
          }
        } else {
          scan(list);
          for (let i = 0; i < total; i += 1) {
            const doc = candidates[i]!;
            if (seen[doc] === pass) {
              scores[doc] = scores[doc]! + best[doc]!;
              candidates[kept++] = doc;
            }
          }
        }
        total = kept;
        if (total === 0) break;
      }

      // The best `limit`, kept sorted while the candidates are read once.
      const top: number[] = [];
      const better = (a: number, b: number) => scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b);
      for (let i = 0; i < total; i += 1) {
        const doc = candidates[i]!;
        if (top.length === limit && !better(doc, top[top.length - 1]!)) continue;
        let at = top.length;
        while (at > 0 && better(doc, top[at - 1]!)) at -= 1;
        top.splice(at, 0, doc);
        if (top.length > limit) top.pop();
      }
      const hits = top.map((doc) => {
        const matched = expanded.map((list) => list.filter(({ term }) => weightIn(term, doc) > 0).map(({ term }) => terms[term]!));
        return { post: posts[doc]!, score: scores[doc]!, ...passage(doc, matched) };
      });
      return { total, hits };
    },
  };
}

/** Where to cut `text` for a snippet of about SNIPPET_LENGTH characters: from a little before `anchor` (never before `floor`), at spaces. */
function cut(text: string, anchor: number | undefined, floor: number): { start: number; end: number } {
  if (text.length <= SNIPPET_LENGTH) return { start: 0, end: text.length };
  let start = anchor === undefined ? 0 : Math.max(floor, anchor - LEAD);
  if (start + SNIPPET_LENGTH > text.length) start = Math.max(floor, text.length - SNIPPET_LENGTH);
  if (start > 0 && text[start - 1] !== ' ') {
    const space = text.indexOf(' ', start);
    if (space !== -1 && (anchor === undefined || space < anchor)) start = space + 1;
  }
  let end = Math.min(text.length, start + SNIPPET_LENGTH);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start && (anchor === undefined || space > anchor)) end = space;
  }
  while (start < end && text[start] === ' ') start += 1;
  while (end > start && text[end - 1] === ' ') end -= 1;
  return { start, end };
}
