import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { openSqliteStore } from '@/lib/services/store/sqlite';
import { freshAddress, postForm, postJson } from '../support/client';
import { contractSites } from '../support/contract-sites';

const site = contractSites();

const subscriber = { email: 'reader@example.com' };

describe('the client address behind a trusted proxy', () => {
  let baseUrl: string;
  beforeAll(async () => {
    ({ baseUrl } = await site({ extraEnv: { TRUST_PROXY: '1' } }));
  });

  it('counts one client under one key whatever port the proxy wrote beside its address', async () => {
    const from = freshAddress();
    for (const forwarded of ['203.0.113.60', '[2001:db8:60::1]']) {
      const host = forwarded.replace(/^\[|\]$/g, '');
      const statuses = [];
      for (let port = 5000; port < 5006; port += 1) {
        const entry = forwarded.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
        statuses.push((await postJson(baseUrl, '/api/subscribe', subscriber, { from, headers: { 'X-Forwarded-For': entry } })).status);
      }
      expect(statuses, forwarded).toEqual([202, 202, 202, 202, 202, 429]);
    }
  });

  it('never keys a client by an entry that is not an address', async () => {
    const from = freshAddress();
    const statuses = [];
    for (const entry of ['999.1.1.1', 'unknown', 'a.example', '999.1.1.2', '1.2.3', 'x:1']) {
      statuses.push((await postJson(baseUrl, '/api/subscribe', subscriber, { from, headers: { 'X-Forwarded-For': entry } })).status);
    }
    // Each request counts under the proxy that passed it on: one budget.
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429]);
  });
});

describe("the client address under lectern's server (npm start)", () => {
  it('is the socket address: a client naming its own in x-lectern-client-ip still meets the limit', async () => {
    const from = freshAddress();
    const statuses = [];
    for (let i = 0; i < 8; i += 1) {
      const headers = { 'X-Lectern-Client-Ip': `198.51.100.${i + 1}`, 'X-Lectern-Client-Ip-Proof': Buffer.alloc(32, i).toString('base64url') };
      statuses.push((await postJson(inject('baseUrl'), '/api/subscribe', subscriber, { from, headers })).status);
    }
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429, 429, 429]);
  });
});

describe('write routes under a bare `next start`', () => {
  it('refuse with a 500 problem that says to run \`npm start\`, whatever x-lectern-client-ip says, store nothing, and say so in the log once', async () => {
    const running = await site({ nextStart: true });
    const attempts: Record<string, string>[] = [
      {},
      { 'X-Lectern-Client-Ip': '203.0.113.9' },
      { 'X-Lectern-Client-Ip': '203.0.113.9', 'X-Lectern-Client-Ip-Proof': Buffer.alloc(32).toString('base64url') },
      { 'X-Lectern-Client-Ip': 'unknown' },
    ];
    for (const headers of attempts) {
      const response = await postJson(running.baseUrl, '/api/subscribe', { email: 'next-start@example.com' }, { from: freshAddress(), headers });
      expect(response.status, JSON.stringify(headers)).toBe(500);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toMatchObject({ status: 500, detail: expect.stringContaining('`npm start`') });
      // It says what to set where lectern's server does not run.
      expect((response.json() as { detail: string }).detail).toMatch(/CLIENT_IP_HEADER[\s\S]*TRUST_PROXY/);
    }
    const form = await postForm(
      running.baseUrl,
      '/api/support',
      { name: 'N', email: 'next-start@example.com', subject: 'S', message: 'M' },
      { from: freshAddress() },
    );
    expect(form.status).toBe(500);
    expect(form.body).toContain('npm start');

    const database = path.join(running.dataDir, 'lectern.db');
    if (fs.existsSync(database)) {
      const store = openSqliteStore(database);
      expect((await store.subscribers.list()).map((subscriber) => subscriber.email)).not.toContain('next-start@example.com');
      await store.close();
    }
    const outbox = path.join(running.dataDir, 'outbox');
    expect(fs.existsSync(outbox) ? fs.readdirSync(outbox) : []).toEqual([]);
    expect(running.output().match(/run the site with `npm start`/g)).toHaveLength(1);
  });
});
