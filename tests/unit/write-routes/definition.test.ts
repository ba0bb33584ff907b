import { describe, expect, it } from 'vitest';
import { problemStatus } from '@/lib/write-routes/definition';

describe('problemStatus', () => {
  it('describes a problem+json answer, with the headers it carries', () => {
    expect(problemStatus('Gone.')).toEqual({
      description: 'Gone.',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    });
    expect(problemStatus('Later.', { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } }).headers).toEqual({
      'Retry-After': { $ref: '#/components/headers/RetryAfter' },
    });
  });
});
