import { describe, expect, it } from 'vitest';
import { laterPageNumber, laterPageNumbers, pageCount, pageOf, pagePath, pageWindow } from '@/lib/content/pagination';

const list = ['a', 'b', 'c', 'd', 'e'];

describe('pagination', () => {
  it('splits a list into pages of the given size, newest first as given', () => {
    expect(pageOf(list, 1, 2)).toEqual({ items: ['a', 'b'], number: 1, count: 3 });
    expect(pageOf(list, 3, 2)).toEqual({ items: ['e'], number: 3, count: 3 });
    expect(pageOf(list, 4, 2)).toBeUndefined();
    expect(pageOf(list, 0, 2)).toBeUndefined();
  });

  it('has one page for an empty list and for a list that fits', () => {
    expect(pageCount(0, 20)).toBe(1);
    expect(pageCount(20, 20)).toBe(1);
    expect(pageCount(21, 20)).toBe(2);
    expect(pageOf([], 1, 20)).toEqual({ items: [], number: 1, count: 1 });
    expect(laterPageNumbers(20, 20)).toEqual([]);
    expect(laterPageNumbers(41, 20)).toEqual([2, 3]);
  });

  it('puts page 1 at the list URL and later pages under /page/n', () => {
    expect(pagePath('/blog', 1)).toBe('/blog');
    expect(pagePath('/tags/http', 2)).toBe('/tags/http/page/2');
  });

  it.each(['1', '0', '01', '2.0', '-2', 'x', '', '1e3', ' 2'])('reads %j as no later page', (segment) => {
    expect(laterPageNumber(segment)).toBeUndefined();
  });

  it('reads later page numbers', () => {
    expect(laterPageNumber('2')).toBe(2);
    expect(laterPageNumber('120')).toBe(120);
  });

  it('shows the first, the last and two either side of the current page, with gaps', () => {
    expect(pageWindow(1, 3)).toEqual([1, 2, 3]);
    expect(pageWindow(1, 10)).toEqual([1, 2, 3, null, 10]);
    expect(pageWindow(6, 10)).toEqual([1, null, 4, 5, 6, 7, 8, null, 10]);
    expect(pageWindow(10, 10)).toEqual([1, null, 8, 9, 10]);
    expect(pageWindow(4, 10)).toEqual([1, 2, 3, 4, 5, 6, null, 10]);
  });
});
