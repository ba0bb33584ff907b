import { describe, expect, it } from 'vitest';
import { describeError } from '@/lib/log';

describe('describeError', () => {
  it('gives the message of an error on one line', () => {
    expect(describeError(new Error('the store is down\n    at somewhere (file.ts:1:1)'))).toBe('the store is down');
  });

  it('replaces every URL, which may carry a password, wherever it stands in the message', () => {
    const line = describeError(new Error('connect to redis://default:s3cret@10.0.0.5:6379 failed, then https://user:pw@api.example/v1'));
    expect(line).not.toContain('s3cret');
    expect(line).not.toContain('pw@');
    expect(line).toBe('connect to <url> failed, then <url>');
  });

  it('names an error that has no message by its code, else its name', () => {
    const refused = Object.assign(new Error(''), { code: 'ECONNREFUSED' });
    expect(describeError(refused)).toBe('ECONNREFUSED');
    expect(describeError(new AggregateError([]))).toBe('AggregateError');
  });

  it('describes anything thrown, not only errors', () => {
    expect(describeError('plain text')).toBe('plain text');
    expect(describeError(42)).toBe('42');
  });
});
