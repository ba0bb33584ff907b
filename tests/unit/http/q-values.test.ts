import { describe, expect, it } from 'vitest';
import { parseWeightedList } from '@/lib/http/q-values';

describe('parseWeightedList', () => {
  it('reads each member with its q, 1 when none is given, in order', () => {
    expect(parseWeightedList('text/markdown, text/html;q=0.9, */*;q=0.1')).toEqual([
      { value: 'text/markdown', q: 1 },
      { value: 'text/html', q: 0.9 },
      { value: '*/*', q: 0.1 },
    ]);
  });

  it('lowercases values and the q parameter name, and ignores other parameters', () => {
    expect(parseWeightedList('Text/HTML; charset=utf-8; Q=0.5, GZIP')).toEqual([
      { value: 'text/html', q: 0.5 },
      { value: 'gzip', q: 1 },
    ]);
  });

  it.each(['2', '1.0001', '0.1234', '-1', 'abc', '', '.5'])('refuses a member whose q is %j (not qvalue syntax)', (q) => {
    expect(parseWeightedList(`br;q=${q}`)).toEqual([{ value: 'br', q: 0 }]);
  });

  it.each(['1', '1.000', '0', '0.001', '0.5'])('accepts the qvalue %j as written', (q) => {
    expect(parseWeightedList(`br;q=${q}`)).toEqual([{ value: 'br', q: Number(q) }]);
  });

  it('skips empty members', () => {
    expect(parseWeightedList(' , gzip,,')).toEqual([{ value: 'gzip', q: 1 }]);
  });
});
