import { describe, expect, it } from 'vitest';
import { buildSearchIndex, snippet, SNIPPET_LENGTH, type SearchablePost } from '@/lib/search';
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

  it('gives a plain-text snippet around the first match', () => {
    const body = `## Intro\n\n${filler}\n\nHere **the ETag** is a [strong validator](/blog/x) of \`the bytes\`. ${filler}`;
    const [hit] = buildSearchIndex([post('a', { body })]).search('etag', 1).hits;
    expect(hit?.snippet).toContain('the ETag is a strong validator of the bytes');
    expect(hit?.snippet).toMatch(/^….*…$/);
    expect(hit!.snippet.length).toBeLessThanOrEqual(SNIPPET_LENGTH + 2);
    expect(hit?.snippet).not.toMatch(/[*`#[\]]/);
  });
});

describe('snippet', () => {
  it('is the whole text when it is short', () => {
    expect(snippet('A short text.', ['short'])).toBe('A short text.');
  });

  it('starts the text when nothing matches, cut at a space', () => {
    const text = `${'alpha beta gamma '.repeat(20)}end`;
    const result = snippet(text, ['zzz']);
    expect(result.startsWith('alpha beta')).toBe(true);
    expect(result.endsWith('…')).toBe(true);
    expect(result.slice(0, -1).endsWith(' ')).toBe(false);
  });

  it('matches at the start of a word only', () => {
    const text = `${'x '.repeat(100)}retag and tag ${'y '.repeat(100)}`;
    const result = snippet(text, ['tag']);
    expect(result.indexOf('and tag')).toBeGreaterThan(-1);
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
