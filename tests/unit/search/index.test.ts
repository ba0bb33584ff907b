import { describe, expect, it } from 'vitest';
import { buildSearchIndex, buildSearchIndexInSlices, SEARCH_BOUNDS, SNIPPET_LENGTH, type SearchablePost } from '@/lib/search';
import { markdownToPlainText } from '@/lib/search/plain-text';

function post(slug: string, fields: Partial<SearchablePost> = {}): SearchablePost {
  return { slug, title: `Post ${slug}`, description: 'A post.', tags: [], body: 'Nothing to see.', ...fields };
}

const filler = 'Words about other things fill this paragraph so that the text is longer than one snippet. '.repeat(4);

describe('buildSearchIndex', () => {
  it('ranks a post whose title holds the word above one that only mentions it in its text', () => {
    const index = buildSearchIndex([
      post('body-only', { body: `${filler} Conditional requests save bytes.` }),
      post('in-title', { title: 'Conditional requests explained', body: filler }),
    ]);
    expect(index.search('conditional', 10).hits.map((hit) => hit.post.slug)).toEqual(['in-title', 'body-only']);
  });

  it('weighs a tag above the same word in the text', () => {
    const index = buildSearchIndex([post('text', { body: 'A note on caching.' }), post('tagged', { tags: ['caching'] })]);
    expect(index.search('caching', 10).hits[0]?.post.slug).toBe('tagged');
  });

  it('finds an unfinished last word, a word with one typo, and words without their accents', () => {
    const index = buildSearchIndex([post('a', { title: 'Validators and ETags' }), post('b', { body: 'Un café crème.' })]);
    expect(index.search('valid', 10).hits.map((hit) => hit.post.slug)).toEqual(['a']);
    expect(index.search('valudators', 10).hits.map((hit) => hit.post.slug)).toEqual(['a']);
    expect(index.search('cafe', 10).hits.map((hit) => hit.post.slug)).toEqual(['b']);
  });

  it('looks for common English words in no post, and a prefix only in the last word', () => {
    const index = buildSearchIndex([post('a', { title: 'The state of caching' }), post('b', { title: 'Cachet and stateless' })]);
    expect(index.search('the of', 10).hits).toEqual([]);
    expect(index.search('the caching', 10).hits.map((hit) => hit.post.slug)).toEqual(['a']);
    expect(index.search('stat cach', 10).hits).toEqual([]);
    expect(index.search('state cach', 10).hits.map((hit) => hit.post.slug)).toEqual(['a']);
  });

  it('needs every word of the query', () => {
    const index = buildSearchIndex([post('both', { body: 'redis limits' }), post('one', { body: 'redis only' })]);
    expect(index.search('redis limits', 10).hits.map((hit) => hit.post.slug)).toEqual(['both']);
  });

  it('keeps the given order (newest first) between equal scores, and counts past the limit', () => {
    const posts = ['c', 'a', 'b'].map((slug) => post(slug, { body: 'same words here' }));
    const result = buildSearchIndex(posts).search('same', 2);
    expect(result.total).toBe(3);
    expect(result.hits.map((hit) => hit.post.slug)).toEqual(['c', 'a']);
  });

  it('finds nothing for words no post holds, and indexes no link targets or code', () => {
    const index = buildSearchIndex([post('a', { body: 'See [the docs](https://example.com/hidden-target).\n\n```js\nconst invisible = 1;\n```\n' })]);
    expect(index.search('zebra', 10)).toEqual({ total: 0, hits: [] });
    expect(index.search('hidden', 10).hits).toEqual([]);
    expect(index.search('invisible', 10).hits).toEqual([]);
    expect(index.search('docs', 10).hits).toHaveLength(1);
  });
});

describe('passages', () => {
  const body = [
    'An opening paragraph about nothing in particular.',
    '## Caching with `ETag`s',
    `${filler} The ETag is a strong validator. ${filler}`,
    '### Weak validators',
    'A weak validator says the bytes may differ, while the ETag and the weak flag together say the meaning holds.',
    '## Caching with `ETag`s',
    'The same heading again gets its own anchor.',
  ].join('\n\n');

  it('names the section where most words of the query meet, with the id the page gives its heading', () => {
    const index = buildSearchIndex([post('a', { body })]);
    expect(index.search('strong validator', 1).hits[0]?.section).toEqual({ heading: 'Caching with ETags', id: 'caching-with-etags' });
    expect(index.search('weak flag', 1).hits[0]?.section).toEqual({ heading: 'Weak validators', id: 'weak-validators' });
    expect(index.search('heading anchor', 1).hits[0]?.section).toEqual({ heading: 'Caching with ETags', id: 'caching-with-etags-1' });
  });

  it('names no section when the match is before the first heading, or only in the title', () => {
    const index = buildSearchIndex([post('a', { title: 'Zeppelins', body })]);
    expect(index.search('opening paragraph', 1).hits[0]?.section).toBeNull();
    const [hit] = index.search('zeppelins', 1).hits;
    expect(hit?.section).toBeNull();
    expect(hit?.marks).toEqual([]);
    expect(hit?.snippet.startsWith('An opening paragraph')).toBe(true);
  });

  it('marks each matched word in the snippet, the word as written (case, accents), not a part of a longer one', () => {
    const index = buildSearchIndex([post('a', { body: `${filler} Retag the ETag: an etag, a Café and a cafe. ${filler}` })]);
    const [hit] = index.search('etag cafe', 1).hits;
    const marked = hit!.marks.map(({ start, end }) => hit!.snippet.slice(start, end));
    expect(marked).toEqual(['ETag', 'etag', 'Café', 'cafe']);
  });

  it('marks the words a prefix or a typo stood for', () => {
    const index = buildSearchIndex([post('a', { body: 'Validators keep conditional requests cheap.' })]);
    const [hit] = index.search('conditonal valid', 1).hits;
    expect(hit!.marks.map(({ start, end }) => hit!.snippet.slice(start, end))).toEqual(['Validators', 'conditional']);
  });

  it('gives a plain-text snippet around the best match, cut at spaces', () => {
    const text = `## Intro\n\n${filler}\n\nHere **the ETag** is a [strong validator](/blog/x) of \`the bytes\`. ${filler}`;
    const [hit] = buildSearchIndex([post('a', { body: text })]).search('etag', 1).hits;
    expect(hit?.snippet).toContain('the ETag is a strong validator of the bytes');
    expect(hit?.snippet).toMatch(/^….*…$/);
    expect(hit!.snippet.length).toBeLessThanOrEqual(SNIPPET_LENGTH + 2);
    expect(hit?.snippet).not.toMatch(/[*`#[\]]/);
  });

  it('is the whole text when it is short, and the description when the post has no text', () => {
    const index = buildSearchIndex([post('a', { body: 'A short text.' }), post('b', { body: '', description: 'Only a short description.' })]);
    expect(
      index
        .search('short', 2)
        .hits.map((hit) => hit.snippet)
        .sort(),
    ).toEqual(['A short text.', 'Only a short description.']);
  });
});

describe('bounds', () => {
  it('searches each word once however often it is repeated, and at most the first words', () => {
    const index = buildSearchIndex([post('a', { body: 'alpha beta' }), post('b', { body: 'alpha gamma' })]);
    expect(index.search(Array(40).fill('alpha').join(' '), 10)).toEqual(index.search('alpha', 10));
    expect(index.search(Array(40).fill('alpha').join(' '), 10).total).toBe(2);
    const words = Array.from({ length: SEARCH_BOUNDS.words }, (_, i) => `w${i}x`);
    const many = buildSearchIndex([post('c', { body: words.join(' ') })]);
    // Past the bound, words are not searched for (lib/search/site.ts refuses such a query before it gets here).
    expect(many.search([...words, 'absent'].join(' '), 10).hits.map((hit) => hit.post.slug)).toEqual(['c']);
  });

  it('lets an unfinished word stand for at most the most frequent words it starts', () => {
    const posts = Array.from({ length: SEARCH_BOUNDS.prefixTerms + 5 }, (_, i) => post(`p${i}`, { body: `prefix${String(i).padStart(2, '0')}` }));
    // The first posts hold their word twice more often in other posts: they are the frequent ones.
    const common = Array.from({ length: SEARCH_BOUNDS.prefixTerms }, (_, i) => post(`c${i}`, { body: `prefix${String(i).padStart(2, '0')}` }));
    const result = buildSearchIndex([...posts, ...common]).search('prefix', 100);
    const found = new Set(result.hits.map((hit) => hit.post.slug));
    expect(result.total).toBe(SEARCH_BOUNDS.prefixTerms * 2);
    expect(found.has('p0')).toBe(true);
    expect(found.has(`p${SEARCH_BOUNDS.prefixTerms + 4}`)).toBe(false);
  });
});

describe('buildSearchIndexInSlices', () => {
  it('builds the same index as buildSearchIndex, letting other work run between slices', async () => {
    const posts = Array.from({ length: 300 }, (_, i) => post(`p${i}`, { title: `Title ${i % 7}`, body: `${filler} word${i % 13} and more` }));
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 0);
    const sliced = await buildSearchIndexInSlices(posts, 0);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
    const whole = buildSearchIndex(posts);
    for (const query of ['title 3', 'word7', 'paragraph', 'wor']) expect(sliced.search(query, 20)).toEqual(whole.search(query, 20));
  });
});

describe('markdownToPlainText', () => {
  it('keeps the words and drops markup, code blocks, HTML and link targets', () => {
    const markdown = [
      '## A heading',
      '',
      'Some *emphasis*, __strong__ and `code` with a [link](https://example.com) and ![alt text](/x.png).',
      '',
      '```ts',
      'const hidden = 1;',
      '```',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '',
      '- [x] done item',
      '> quoted',
      '<script>alert(1)</script>',
    ].join('\n');
    expect(markdownToPlainText(markdown)).toBe('A heading Some emphasis, strong and code with a link and alt text. a b 1 2 done item quoted');
  });
});
