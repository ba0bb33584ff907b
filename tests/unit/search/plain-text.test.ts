import { describe, expect, it } from 'vitest';
import { markdownToPlainText } from '@/lib/search/plain-text';

const text = (...lines: string[]) => markdownToPlainText(lines.join('\n'));

// What a reader sees of the markdown (CommonMark with GitHub's extensions), as words for a snippet.
describe('markdownToPlainText', () => {
  it('drops fenced code of either fence, with its info string, up to a closing fence at least as long', () => {
    expect(text('Before.', '~~~python', 'secret = 1', '~~~', 'After.')).toBe('Before. After.');
    expect(text('Before.', '````md', '```', 'inner = 1', '```', '````', 'After.')).toBe('Before. After.');
    expect(text('Before.', '   ```', 'indented = 1', '   ```', 'After.')).toBe('Before. After.');
  });

  it('drops a fence left open to the end of the text, as a renderer shows it: all code', () => {
    expect(text('Before.', '```js', 'const open = 1;', '', 'Still code.')).toBe('Before.');
  });

  it('drops HTML comments, scripts and styles, and keeps the text inside other tags', () => {
    expect(text('One <!-- a note\nover lines --> two <style>p { color: red }</style> three <kbd>Ctrl</kbd> <span class="x">four</span>')).toBe(
      'One two three Ctrl four',
    );
  });

  it('keeps the text of inline links, reference links and images, and drops link definitions', () => {
    expect(
      text('Read [the spec][rfc] and [the post](/blog/etags "Title") ![a diagram](/images/d.svg).', '', '[rfc]: https://www.rfc-editor.org/rfc/rfc9110'),
    ).toBe('Read the spec and the post a diagram.');
  });

  it('drops the markers of headings, quotes, numbered and bulleted lists, task boxes and rules', () => {
    expect(text('###### Deep heading', '> > Nested quote', '1. first', '2) second', '+ plus', '* [ ] open task', '***', '___', 'End')).toBe(
      'Deep heading Nested quote first second plus open task End',
    );
  });

  it('keeps a hash that starts no heading', () => {
    expect(text('#5 on the list')).toBe('#5 on the list');
  });

  it('keeps the words of emphasis, strong, both and strikethrough', () => {
    expect(text('*one* _two_ **three** __four__ ***five*** ~~six~~')).toBe('one two three four five six');
  });

  it('keeps underscores inside a word, which mark no emphasis', () => {
    expect(text('Set max_age_seconds or snake_case names.')).toBe('Set max_age_seconds or snake_case names.');
  });

  it('shows an escaped character as itself, not as markup', () => {
    expect(text('\\*not emphasis\\* and 2 \\* 3 and \\_kept\\_ and \\# not a heading')).toBe('*not emphasis* and 2 * 3 and _kept_ and # not a heading');
  });

  it('keeps the text of table cells, without pipes or the alignment row', () => {
    expect(text('| Header | Aligned |', '| :--- | ---: |', '| cell | 42 |')).toBe('Header Aligned cell 42');
  });

  it('is one line of words: runs of white space are one space, none at the ends', () => {
    expect(text('  First\tline  ', '', '', '   second   ')).toBe('First line second');
    expect(markdownToPlainText('')).toBe('');
  });

  it('keeps the words a reader sees and drops the markup around them', () => {
    const markdown =
      '# Caching\n\nSome **bold** and _slanted_ words, `inline code`, a [link](https://example.test) and ![a cat](/cat.png).\n\n> quoted\n\n- one\n- [x] two\n';
    expect(markdownToPlainText(markdown)).toBe('Caching Some bold and slanted words, inline code, a link and a cat. quoted one two');
  });

  it('drops code blocks, HTML tags, scripts and comments, which are not prose', () => {
    const markdown = 'Before.\n\n```js\nconst secret = 1;\n```\n\n<div class="x">inside</div><script>alert(1)</script><!-- note -->\n\nAfter.';
    expect(markdownToPlainText(markdown)).toBe('Before. inside After.');
  });

  it('drops table rules and pipes, link definitions and thematic breaks', () => {
    const markdown = '| a | b |\n| --- | :-: |\n| 1 | 2 |\n\n***\n\n[ref]: https://example.test\n\nSee [the docs][ref].';
    expect(markdownToPlainText(markdown)).toBe('a b 1 2 See the docs.');
  });

  it('keeps an escaped character as itself', () => {
    expect(markdownToPlainText('2 \\* 3 and \\_name\\_')).toBe('2 * 3 and _name_');
  });
});
