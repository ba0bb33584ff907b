import { describe, expect, it } from 'vitest';
import { CONTENT_SIGNAL } from '@/lib/agents/terms';
import { feedResponse, jsonResponse, markdownNotFound, markdownResponse, redirectResponse, textResponse, xmlResponse } from '@/lib/http/responses';
import { settings } from '@/lib/settings';

describe('read responses', () => {
  it('sends markdown in UTF-8 with the read profile, the content signal and the moment given as Last-Modified', async () => {
    const response = markdownResponse('# Hi\n', { lastModified: settings().build.time });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('public, max-age=30, s-maxage=30, stale-while-revalidate=30');
    expect(response.headers.get('content-signal')).toBe(CONTENT_SIGNAL);
    expect(response.headers.get('content-usage')).toBe('train-ai=n, ai-use=y, search=y');
    expect(response.headers.get('last-modified')).toBe(new Date(settings().build.time).toUTCString());
    expect(await response.text()).toBe('# Hi\n');
  });

  it('sends no Last-Modified where no moment is given (an answer to a write)', () => {
    expect(jsonResponse({ received: true }, { cache: 'write' }).headers.get('last-modified')).toBeNull();
  });

  it('states the length of markdown in tokens (characters / 4, rounded up), on a 200 only', () => {
    expect(markdownResponse('# Hi\n').headers.get('x-markdown-tokens')).toBe('2');
    expect(markdownResponse('x'.repeat(4000)).headers.get('x-markdown-tokens')).toBe('1000');
    expect(markdownNotFound().headers.get('x-markdown-tokens')).toBeNull();
  });

  it('sends Content-Usage with content (feeds, JSON), not with other files', () => {
    expect(feedResponse('<rss/>', 'application/rss+xml').headers.get('content-usage')).toBe('train-ai=n, ai-use=y, search=y');
    expect(jsonResponse([]).headers.get('content-usage')).toBe('train-ai=n, ai-use=y, search=y');
    expect(xmlResponse('<a/>', 'application/xml').headers.get('content-usage')).toBeNull();
    expect(textResponse('x').headers.get('content-usage')).toBeNull();
  });

  it('uses the time the content last changed when given, and lets given headers win', () => {
    const response = textResponse('x', { lastModified: Date.UTC(2025, 0, 2), headers: { 'Cache-Control': 'no-store' } });
    expect(response.headers.get('last-modified')).toBe('Thu, 02 Jan 2025 00:00:00 GMT');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-signal')).toBeNull();
  });

  it('sends JSON serialized, under its own media type when given one', async () => {
    const response = jsonResponse({ a: 1 }, { contentType: 'application/linkset+json' });
    expect(response.headers.get('content-type')).toBe('application/linkset+json');
    expect(await response.text()).toBe('{"a":1}');
    expect(jsonResponse([]).headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('names XML and feeds in UTF-8', () => {
    expect(xmlResponse('<a/>', 'application/xml').headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(feedResponse('{}', 'application/feed+json').headers.get('content-type')).toBe('application/feed+json; charset=utf-8');
  });

  it('answers a markdown URL that finds nothing with a short 404 in markdown, without Last-Modified, the same whatever was asked', async () => {
    const response = markdownNotFound();
    expect(response.status).toBe(404);
    expect(response.headers.get('cache-control')).toBe('public, max-age=30');
    expect(response.headers.get('last-modified')).toBeNull();
    expect(await response.text()).toBe('# Not found\n\nNothing is published at this address. The list of posts is at /api/blog.\n');
  });

  it('redirects with 302 and is never stored', () => {
    const response = redirectResponse('https://downloads.example.com/app.dmg');
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('https://downloads.example.com/app.dmg');
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});
