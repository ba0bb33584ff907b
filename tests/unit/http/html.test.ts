import { describe, expect, it } from 'vitest';
import { escapeHtml, messagePage } from '@/lib/http/html';

describe('HTML escaping', () => {
  it('escapes the five characters that can end text or an attribute value', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    expect(escapeHtml('plain text')).toBe('plain text');
  });
});

describe('the message page', () => {
  it('is a complete, unindexed page with every value escaped', () => {
    const page = messagePage({ title: 'Too <many>', paragraphs: ['Wait "a" minute', 'Then retry'], list: ['a & b'], back: '/support?x="1"' });
    expect(page).toMatch(/^<!DOCTYPE html>/);
    const parts = [
      '<meta name="robots" content="noindex">',
      '<title>Too &lt;many&gt;</title>',
      '<h1>Too &lt;many&gt;</h1>',
      '<p>Wait &quot;a&quot; minute</p>\n<p>Then retry</p>',
      '<ul><li>a &amp; b</li></ul>',
      '<a href="/support?x=&quot;1&quot;">Go back</a>',
    ];
    expect(parts.filter((part) => !page.includes(part))).toEqual([]);
  });

  it('leaves out an empty list and goes back to the home page by default', () => {
    const page = messagePage({ title: 'Sent', paragraphs: ['Thanks'] });
    expect(page).not.toContain('<ul>');
    expect(page).toContain('<a href="/">Go back</a>');
  });
});
