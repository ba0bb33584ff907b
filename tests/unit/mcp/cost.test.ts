import { describe, expect, it } from 'vitest';
import { mcpCost } from '@/lib/mcp/cost';

const call = (name: string, args?: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

describe('mcpCost', () => {
  it('prices a message by its work: the lists and reads of one thing 1, a post 2, a list by the posts asked, a search by the results asked', () => {
    expect(mcpCost({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBe(1);
    expect(mcpCost({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })).toBe(1);
    expect(mcpCost({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(1);
    expect(mcpCost(call('fetch', { id: 'a-post' }))).toBe(2);
    expect(mcpCost(call('get_post', { slug: 'a-post' }))).toBe(2);
    expect(mcpCost(call('list_posts'))).toBe(2);
    expect(mcpCost(call('list_posts', { limit: 50 }))).toBe(6);
    expect(mcpCost(call('search', { query: 'etags' }))).toBe(3);
    expect(mcpCost(call('search_posts', { query: 'etags' }))).toBe(3);
    expect(mcpCost(call('search_posts', { query: 'one two three four five six seven eight nine ten', limit: 50 }))).toBe(11);
  });

  it('never prices a call under 1 nor past its largest answer, whatever the arguments say', () => {
    expect(mcpCost(call('search_posts', { query: 'x', limit: 5000 }))).toBe(11);
    expect(mcpCost(call('search_posts', { query: 'x', limit: -3 }))).toBe(3);
    expect(mcpCost(call('list_posts', { limit: '50' }))).toBe(2);
    expect(mcpCost(call('no_such_tool'))).toBe(1);
    expect(mcpCost(undefined)).toBe(1);
    expect(mcpCost('text')).toBe(1);
  });
});
