import { describe, expect, it } from 'vitest';
import { resolveUrl } from '@/lib/content/absolute-urls';
import { renderMarkdown } from '@/lib/content/render';

const POST = 'https://site.example/blog/a-post';

describe('feed HTML: every URL absolute against the post URL', () => {
  it('resolves document-relative, parent, root-relative and fragment links as a browser on the post page would', async () => {
    const { html } = await renderMarkdown('[s](sibling) [u](../up) [r](/root?q=1) [f](#part) [o](https://other.example/x) [m](mailto:a@b.example)', {
      baseUrl: POST,
    });
    expect(html).toContain('href="https://site.example/blog/sibling"');
    expect(html).toContain('href="https://site.example/up"');
    expect(html).toContain('href="https://site.example/root?q=1"');
    expect(html).toContain('href="https://site.example/blog/a-post#part"');
    expect(html).toContain('href="https://other.example/x"');
    expect(html).toContain('href="mailto:a@b.example"');
  });

  it('resolves image sources and every srcset candidate, keeping descriptors', async () => {
    const { html } = await renderMarkdown('<picture><source srcset="w.png 2x, /n.png 1x"><img src="x.png" alt="x"></picture>\n\n![y](../y.png)', {
      baseUrl: POST,
    });
    expect(html).toContain('srcset="https://site.example/blog/w.png 2x, https://site.example/n.png 1x"');
    expect(html).toContain('src="https://site.example/blog/x.png"');
    expect(html).toContain('src="https://site.example/y.png"');
  });

  it('makes heading anchors absolute too, and leaves no relative URL anywhere', async () => {
    const { html } = await renderMarkdown('## Part one\n\n<img src="x">', { baseUrl: POST });
    expect(html).toContain('href="https://site.example/blog/a-post#part-one"');
    for (const [, url] of html.matchAll(/\s(?:href|src)="([^"]*)"/g)) expect(url).toMatch(/^[a-z][a-z0-9+.-]*:/);
  });

  it('leaves the page HTML (no base URL) as written', async () => {
    const { html } = await renderMarkdown('[s](sibling)');
    expect(html).toContain('href="sibling"');
  });

  it('keeps an absolute URL as written and refuses one that does not resolve', () => {
    expect(resolveUrl('HTTPS://Other.example', POST)).toBe('HTTPS://Other.example');
    expect(resolveUrl('//cdn.example/a', POST)).toBe('https://cdn.example/a');
    expect(resolveUrl('http://[bad', POST)).toBe('http://[bad');
    expect(resolveUrl('//[bad', POST)).toBeUndefined();
  });
});
