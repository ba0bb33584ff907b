import { describe, expect, it } from 'vitest';
import { setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings({ SITE_URL: 'https://blog.example.test' });

const { markdownPageResponse } = await import('@/lib/http/markdown-page');

describe('markdownPageResponse', () => {
  it('serves a page’s markdown twin naming the HTML page as canonical, with the content signal', async () => {
    const response = markdownPageResponse('# Pricing\n', '/pricing', Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(response.headers.get('link')).toBe('<https://blog.example.test/pricing>; rel="canonical"; type="text/html"');
    expect(response.headers.get('last-modified')).toBe('Fri, 02 Jan 2026 03:04:05 GMT');
    expect(response.headers.get('content-signal')).toBe('search=yes, ai-input=yes, ai-train=no');
    expect(await response.text()).toBe('# Pricing\n');
  });
});
