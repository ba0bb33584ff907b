import { describe, expect, it } from 'vitest';
import { foldText, queryWords, words } from '@/lib/search/text';

describe('foldText', () => {
  it('lowercases and drops accents, keeping every character at its index', () => {
    const text = 'Café “Crème” — ÉTÉ naïve ß İstanbul 😀 Ω';
    const folded = foldText(text);
    expect(folded).toHaveLength(text.length);
    expect(folded).toBe('cafe “creme” — ete naive ß istanbul 😀 ω');
  });

  it('leaves ASCII text as its lowercase', () => {
    expect(foldText('Cache-Control: MAX-AGE=300')).toBe('cache-control: max-age=300');
  });
});

describe('queryWords', () => {
  it('keeps each word once, folded, without common English words', () => {
    expect(queryWords('The ETag, the etag and THE Café of caching')).toEqual(['etag', 'cafe', 'caching']);
    expect(words('max_age_seconds: 300')).toEqual(['max', 'age', 'seconds', '300']);
  });
});
