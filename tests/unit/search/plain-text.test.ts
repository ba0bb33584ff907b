import { describe, expect, it } from 'vitest';
import { markdownToPlainText } from '@/lib/search/plain-text';

describe('markdownToPlainText', () => {
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
