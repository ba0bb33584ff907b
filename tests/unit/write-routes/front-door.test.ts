import { afterAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { handlersFor, writeRouteHandlers } from '@/lib/write-routes/front-door';
import { settings } from '@/lib/settings';
import { defineWriteRoute, type WriteServices } from '@/lib/write-routes/definition';
import { testServices } from '../../support/services';
import { freshClient, post, setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();
const { services } = testServices();

type Received = { input: unknown; client: string; form: boolean; services: WriteServices };
const received: Received[] = [];
let failNext = false;

/** A route of the shape every write route has, limited as `support` is (5 per 10 minutes), recording what its action was given. */
const testRoute = defineWriteRoute({
  route: { name: 'support', path: '/api/test', limit: { requests: 5, windowSeconds: 600 } },
  handle: {
    schema: z.strictObject({
      name: z.string().min(1, 'must not be empty'),
      count: z.coerce.number<string | number>().int().optional(),
      website: z.string().optional(),
    }),
    honeypot: () => ({ ok: true, status: 202, body: { status: 'received' }, redirect: '/sent' }),
    async action(input, context) {
      if (failNext) {
        failNext = false;
        throw new Error('store down');
      }
      received.push({ input, client: context.client, form: context.form, services: context.services });
      return { ok: true, status: 202, body: { status: 'received' }, redirect: '/sent' };
    },
  },
  docs: { summary: 'A test route.' },
});
const route = handlersFor(testRoute, () => services, settings);

const tokenRoute = handlersFor(
  defineWriteRoute({
    route: { ...testRoute, name: 'indexNotify' },
    handle: {
      schema: z.strictObject({ token: z.string().optional() }),
      optionalBody: true,
      multipart: true,
      queryFields: [{ name: 'token', description: 'A token.', pattern: '^.+$' }],
      authorize: {
        check: (request) =>
          request.headers.get('authorization') === 'Bearer right'
            ? undefined
            : { ok: false, problem: 'unauthorized', detail: 'Send the token.', headers: { 'WWW-Authenticate': 'Bearer' } },
        security: { bearer: [] },
      },
      async action(input) {
        return { ok: true, status: 200, body: { given: input } };
      },
    },
    docs: { summary: 'A test route.' },
  }),
  () => services,
  settings,
);

afterAll(() => vi.restoreAllMocks());

describe('handlersFor', () => {
  it('runs the action with the validated input and the services it was given, and answers JSON with the route limit headers', async () => {
    const client = freshClient();
    const response = await route.POST(post('/api/test', { json: { name: 'Ada', count: '3' } }, { client }));
    expect(response.status).toBe(202);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('ratelimit-policy')).toBe('"support";q=5;w=600');
    expect(response.headers.get('ratelimit')).toMatch(/^"support";r=4;t=\d+$/);
    expect(response.headers.get('cache-control')).toContain('no-store');
    expect(await response.json()).toEqual({ status: 'received' });
    const { services: given, ...context } = received.at(-1) ?? {};
    expect(context).toEqual({ input: { name: 'Ada', count: 3 }, client, form: false });
    expect(given).toBe(services);
  });

  it('sends a browser form post to the result page with 303', async () => {
    const response = await route.POST(post('/api/test', { form: { name: 'Ada' } }));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/sent');
    expect(received.at(-1)?.form).toBe(true);
  });

  it('names every invalid and unknown field in a 400 problem, without running the action', async () => {
    const before = received.length;
    const response = await route.POST(post('/api/test', { json: { name: '', colour: 'red' } }));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    const body = await response.json();
    expect(body).toMatchObject({ status: 400, title: 'Invalid input', detail: 'Check name, colour.' });
    expect(body.errors).toEqual([
      { path: 'name', message: 'must not be empty' },
      { path: 'colour', message: 'is not a known field' },
    ]);
    expect(received).toHaveLength(before);
  });

  it('shows a browser form the problem as a page naming the fields', async () => {
    const response = await route.POST(post('/api/test', { form: { count: 'x' } }));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toContain('name: ');
  });

  it('answers a filled honeypot like a success and runs nothing', async () => {
    const before = received.length;
    const response = await route.POST(post('/api/test', { json: { name: 'Bot', website: 'http://spam.example' } }));
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ status: 'received' });
    expect(received).toHaveLength(before);
  });

  it('refuses bodies it cannot read: 415 for another type or charset, 413 past 16 KiB, 400 for broken JSON', async () => {
    expect((await route.POST(post('/api/test', { raw: 'name=Ada', type: 'text/plain' }))).status).toBe(415);
    expect((await route.POST(post('/api/test', { raw: '{"name":"Ada"}', type: 'application/json; charset=latin1' }))).status).toBe(415);
    expect((await route.POST(post('/api/test', { json: { name: 'x'.repeat(17 * 1024) } }))).status).toBe(413);
    const broken = await route.POST(post('/api/test', { raw: '{"name":', type: 'application/json' }));
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ detail: 'The body is not valid JSON.' });
    const array = await route.POST(post('/api/test', { raw: '[1]', type: 'application/json' }));
    expect(await array.json()).toMatchObject({ status: 400, detail: 'The JSON body must be an object.' });
  });

  it('refuses a post from another origin with 403', async () => {
    const response = await route.POST(post('/api/test', { json: { name: 'Ada' } }, { headers: { origin: 'https://elsewhere.example' } }));
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ title: 'Cross-site post refused' });
  });

  it('counts every request, refused ones too, and answers 429 with an honest Retry-After past the limit', async () => {
    const client = freshClient();
    for (let index = 0; index < 5; index += 1) await route.POST(post('/api/test', { raw: 'x', type: 'text/plain' }, { client }));
    const refused = await route.POST(post('/api/test', { json: { name: 'Ada' } }, { client }));
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(600);
    expect(refused.headers.get('ratelimit')).toMatch(/^"support";r=0;t=\d+$/);
    expect(await refused.json()).toMatchObject({ status: 429, title: 'Too many requests' });
  });

  it('answers 503 with Retry-After and nothing kept when the action fails', async () => {
    failNext = true;
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const response = await route.POST(post('/api/test', { json: { name: 'Ada' } }));
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('60');
    expect(await response.json()).toMatchObject({ detail: expect.stringContaining('nothing was kept') });
    expect(logged).toHaveBeenCalledWith('/api/test: store down');
  });

  it('answers other methods 405 with Allow: POST', async () => {
    const response = route.PUT(post('/api/test', {}, { method: 'PUT' }));
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toMatchObject({ detail: '/api/test accepts POST only.' });
    expect(route.GET(new Request('http://localhost:3000/api/test')).status).toBe(405);
  });

  it('checks authorization before reading the body', async () => {
    const response = await tokenRoute.POST(post('/api/test', { raw: 'not even parsed', type: 'text/plain' }));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
  });

  it('takes no body at all when the route allows it, a query field, and multipart text fields', async () => {
    const auth = { authorization: 'Bearer right' };
    const empty = await tokenRoute.POST(post('/api/test', {}, { headers: auth }));
    expect(await empty.json()).toEqual({ given: {} });
    const query = await tokenRoute.POST(post('/api/test?token=abc', {}, { headers: auth }));
    expect(await query.json()).toEqual({ given: { token: 'abc' } });
    const form = new FormData();
    form.set('token', 'def');
    const multipart = await tokenRoute.POST(
      new Request('http://localhost:3000/api/test', { method: 'POST', headers: { ...auth, 'x-real-ip': freshClient() }, body: form }),
    );
    expect(await multipart.json()).toEqual({ given: { token: 'def' } });
    const twice = await tokenRoute.POST(post('/api/test?token=abc', { json: { token: 'abc' } }, { headers: auth }));
    expect(twice.status).toBe(400);
  });
});

describe('writeRouteHandlers (app/api/[...path]/route.ts)', () => {
  const handlers = writeRouteHandlers(() => services, settings);

  it("answers each write route of the registry at its path, through the route's own handler", async () => {
    const invalid = await handlers.POST(post('/api/support', { json: {} }));
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('ratelimit-policy')).toBe('"support";q=5;w=600');
    expect(await invalid.json()).toMatchObject({ title: expect.any(String), errors: expect.arrayContaining([expect.objectContaining({ path: 'email' })]) });
    const read = await handlers.GET(new Request('http://localhost:3000/api/payments/checkout'));
    expect(read.status).toBe(405);
    expect(read.headers.get('ratelimit-policy')).toMatch(/^"checkout";/);
    // The one route that answers a GET (a link opened in a browser) keeps it.
    const opened = await handlers.GET(new Request('http://localhost:3000/api/subscribe/unsubscribe?token=abcdefghijklmnop'));
    expect(opened.status).toBe(303);
  });

  it('answers any other path under /api/ 404 problem+json, whatever the method', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
      const response = await handlers[method](new Request('http://localhost:3000/api/no-such-route', { method }));
      expect(response.status, method).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(await response.json()).toMatchObject({ status: 404 });
    }
    // A route's path is matched whole, not as a prefix.
    expect((await handlers.POST(post('/api/support/more', { json: {} }))).status).toBe(404);
  });

  it('answers OPTIONS on a write route 204 with the methods its handlers take', () => {
    const response = handlers.OPTIONS(new Request('http://localhost:3000/api/subscribe', { method: 'OPTIONS' }));
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT');
  });
});
