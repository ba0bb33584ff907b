import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freshAddress, postJson, request } from '../support/client';
import { startNginx, type RunningNginx } from '../support/nginx';

/**
 * deploy/nginx.conf as shipped: one upstream server, in front of the one instance most sites run
 * (the contract suite's shared server). Its error log stays free of refused connections, and
 * X-Cache-Status tells the operator what nginx's cache did with each answer.
 */
describe('the shipped nginx file, in front of one instance', () => {
  let nginx: RunningNginx;

  beforeAll(async () => {
    nginx = await startNginx([Number(new URL(inject('baseUrl')).port)]);
  });

  afterAll(async () => {
    await nginx?.stop();
  });

  it('says MISS, then HIT, for a cached read, and BYPASS for a write and /mcp', async () => {
    for (const path of ['/', '/api/blog', '/llms.txt']) {
      const first = await request(nginx.http, path);
      const again = await request(nginx.http, path);
      expect(first.status, path).toBe(200);
      expect(first.headers['x-cache-status'], path).toBe('MISS');
      expect(again.headers['x-cache-status'], path).toBe('HIT');
      expect(again.body, path).toBe(first.body);
    }
    const from = freshAddress();
    const written = await postJson(nginx.http, '/api/subscribe', { email: 'not-an-email' }, { from });
    expect(written.status).toBe(400);
    expect(written.headers['x-cache-status']).toBe('BYPASS');
    for (let id = 0; id < 2; id++) {
      const mcp = await postJson(
        nginx.http,
        '/mcp',
        { jsonrpc: '2.0', id, method: 'ping' },
        { from, headers: { Accept: 'application/json, text/event-stream' } },
      );
      expect(mcp.json()).toEqual({ jsonrpc: '2.0', id, result: {} });
      expect(mcp.headers['x-cache-status']).toBe('BYPASS');
    }
    // nginx's own word, one of these, and nothing else in the header.
    const read = await request(nginx.http, '/');
    expect(String(read.headers['x-cache-status'])).toMatch(/^(HIT|MISS|EXPIRED|STALE|UPDATING|REVALIDATED|BYPASS)$/);
  });

  it('logs no refused or failed connection to an upstream after reads and writes', async () => {
    for (let i = 0; i < 20; i++) expect((await request(nginx.http, `/?n=${i}`)).status).toBe(200);
    expect(nginx.log()).not.toMatch(/connect\(\) failed|Connection refused|no live upstreams|upstream server temporarily disabled/);
  });
});
