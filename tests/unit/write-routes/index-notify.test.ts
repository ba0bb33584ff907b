import { afterAll, describe, expect, it } from 'vitest';
import { sitemapUrls } from '@/lib/sitemap/urls';
import { handlersFor } from '@/lib/write-routes/front-door';
import { settings } from '@/lib/settings';
import { indexNotifyRoute } from '@/lib/write-routes/index-notify';
import { startRecorder } from '../../support/recorder';
import { testServices } from '../../support/services';
import { post, setWriteRouteSettings } from '../../support/write-routes';

const indexNow = await startRecorder(() => ({ status: 202, body: '' }));
afterAll(() => indexNow.close());
setWriteRouteSettings({
  INDEX_NOTIFY_TOKEN: 'owner-token-0123456789',
  INDEXNOW_KEY: 'indexnow-key-0123',
  INDEXNOW_ENDPOINT: `${indexNow.url}/indexnow`,
});
const { services } = testServices();
const { POST } = handlersFor(indexNotifyRoute, () => services, settings);
const owner = { authorization: 'Bearer owner-token-0123456789' };

describe('POST /api/index-notify', () => {
  it('refuses a request without the bearer token, 401 with WWW-Authenticate, before reading the body', async () => {
    const response = await POST(post('/api/index-notify', { raw: 'not read', type: 'text/plain' }, { headers: { authorization: 'Bearer wrong' } }));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="index-notify"');
    expect(indexNow.requests).toHaveLength(0);
  });

  it('submits every page the first time, then only what changed since', async () => {
    const first = await POST(post('/api/index-notify', {}, { headers: owner }));
    expect(first.status).toBe(200);
    const pages = sitemapUrls(settings().site).map((url) => url.loc);
    expect(await first.json()).toEqual({
      submitted: pages.length,
      accepted: true,
      engine: new URL(indexNow.url).host,
      batches: [{ urls: pages.length, status: 202 }],
    });
    expect(JSON.parse(indexNow.requests[0]?.body ?? '{}')).toEqual({
      host: 'localhost:3000',
      key: 'indexnow-key-0123',
      keyLocation: 'http://localhost:3000/indexnow-key-0123.txt',
      urlList: pages,
    });
    const second = await POST(post('/api/index-notify', {}, { headers: owner }));
    expect((await second.json()).submitted).toBe(0);
  });

  it('submits the URLs given, and refuses those of another host', async () => {
    const given = await POST(post('/api/index-notify', { json: { urls: ['http://localhost:3000/blog'] } }, { headers: owner }));
    expect((await given.json()).submitted).toBe(1);
    expect(JSON.parse(indexNow.requests.at(-1)?.body ?? '{}').urlList).toEqual(['http://localhost:3000/blog']);
    const foreign = await POST(post('/api/index-notify', { json: { urls: ['https://elsewhere.example/'] } }, { headers: owner }));
    expect(foreign.status).toBe(400);
    expect((await foreign.json()).errors).toEqual([{ path: 'urls', message: 'https://elsewhere.example/ is not on localhost:3000' }]);
  });
});
