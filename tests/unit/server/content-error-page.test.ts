import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ContentError } from '@/lib/content/load';
import { sendContentError } from '@/lib/server/content-error-page';

let server: Server | undefined;

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

const problems = new ContentError([
  { file: 'posts/a.md', key: 'date', message: 'Expected a date' },
  { file: 'posts/<b>.md', key: 'title', message: '<script>alert(1)</script> is missing' },
]);

async function ask(method: string, accept?: string) {
  server = createServer((req, res) => sendContentError(req, res, problems));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const port = (server!.address() as AddressInfo).port;
  return new Promise<{ status: number; type: string; cache: string; body: string }>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/blog', method, headers: accept ? { accept } : {} }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'] ?? '', cache: response.headers['cache-control'] ?? '', body }),
      );
    })
      .on('error', reject)
      .end();
  });
}

describe('the page answered while the content has problems', () => {
  it('shows a browser every problem on an HTML page, escaped, with a link back to the page asked for', async () => {
    const answer = await ask('GET', 'text/html,application/xhtml+xml');
    expect(answer).toMatchObject({ status: 500, type: 'text/html; charset=utf-8', cache: 'no-store' });
    expect(answer.body).toContain('<h1>The content has problems</h1>');
    expect(answer.body).toContain('<li>posts/a.md › date: Expected a date</li>');
    expect(answer.body).toContain('posts/&lt;b&gt;.md › title: &lt;script&gt;alert(1)&lt;/script&gt; is missing');
    expect(answer.body).not.toContain('<script>');
    expect(answer.body).toContain('<a href="/blog">Go back</a>');
  });

  it("gives anything else the build's message as plain text", async () => {
    const answer = await ask('GET', 'application/json');
    expect(answer).toMatchObject({ status: 500, type: 'text/plain; charset=utf-8', cache: 'no-store' });
    expect(answer.body).toBe(`${problems.message}\n`);
  });

  it('answers HEAD with the same status and no body', async () => {
    const answer = await ask('HEAD');
    expect(answer).toMatchObject({ status: 500, type: 'text/plain; charset=utf-8', body: '' });
  });
});
