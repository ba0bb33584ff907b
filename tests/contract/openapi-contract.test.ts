import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { freshAddress, request } from '../support/client';
import { get, url } from '../support/http';

type Header = { $ref?: string; required?: boolean; schema?: { const?: unknown } };
type Declared = { content?: Record<string, { schema?: object }>; headers?: Record<string, Header> };
type Spec = {
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, Declared> }>>;
  components: { schemas: Record<string, object>; headers: Record<string, Header> };
};

async function loadSpec(): Promise<Spec> {
  return (await (await get('/openapi.json')).json()) as Spec;
}

/** The operations the requests below exercised, as "METHOD /template". */
const exercised = new Set<string>();

/** Every header the spec says this response sends (required: true) is sent, with its value where the spec fixes one. */
function expectDeclaredHeaders(spec: Spec, declared: Declared, headers: Headers, label: string) {
  for (const [name, header] of Object.entries(declared.headers ?? {})) {
    const resolved = header.$ref ? spec.components.headers[header.$ref.split('/').pop() ?? ''] : header;
    if (!resolved?.required) continue;
    const value = headers.get(name);
    expect(value, `${label}: ${name}`).not.toBeNull();
    if (resolved.schema?.const !== undefined) expect(value, `${label}: ${name}`).toBe(String(resolved.schema.const));
  }
}

/** A response checked against what the spec declares for its operation and status: the status, headers, type and (JSON) body. */
async function expectDeclared(spec: Spec, method: string, template: string, response: Response) {
  exercised.add(`${method.toUpperCase()} ${template}`);
  const label = `${method.toUpperCase()} ${template} ${response.status}`;
  const declared = spec.paths[template]?.[method]?.responses[String(response.status)];
  expect(declared, `status declared: ${label}`).toBeDefined();
  if (!declared) return;
  expectDeclaredHeaders(spec, declared, response.headers, label);
  const mediaType = (response.headers.get('content-type') ?? '').split(';')[0] ?? '';
  if (!declared.content) {
    expect(mediaType, `no body declared: ${label}`).toBe('');
    return;
  }
  const content = Object.entries(declared.content).find(([type]) => type.split(';')[0] === mediaType);
  expect(content, `${mediaType} declared for ${label}`).toBeDefined();
  const schema = content?.[1].schema;
  if (schema && /json/.test(mediaType)) {
    const validate = new Ajv2020({ strict: false }).compile({ ...schema, components: spec.components });
    const body: unknown = await response.json();
    expect(validate(body), `${label}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
}

/** Real requests against the running site, each checked against what /openapi.json declares for it. */
const CASES: { path: string; template: string; headers?: Record<string, string> }[] = [
  { path: '/api/blog', template: '/api/blog' },
  { path: '/api/blog?limit=1', template: '/api/blog' },
  { path: '/api/blog?limit=0', template: '/api/blog' },
  { path: '/api/blog?limit=abc', template: '/api/blog' },
  { path: '/api/search?q=alpha', template: '/api/search' },
  { path: '/api/search?q=alpha&limit=1', template: '/api/search' },
  { path: '/api/search', template: '/api/search' },
  { path: '/api/search?q=alpha&limit=0', template: '/api/search' },
  { path: '/api/blog/alpha-post/markdown', template: '/api/blog/{slug}/markdown' },
  { path: '/api/blog/draft-post/markdown', template: '/api/blog/{slug}/markdown' },
  { path: '/blog/alpha-post.md', template: '/blog/{slug}.md' },
  { path: '/blog/nope.md', template: '/blog/{slug}.md' },
  { path: '/blog/alpha-post', template: '/blog/{slug}', headers: { Accept: 'text/markdown' } },
  { path: '/blog/alpha-post', template: '/blog/{slug}' },
  { path: '/blog/nope', template: '/blog/{slug}' },
  { path: '/api/home/markdown', template: '/api/home/markdown' },
  { path: '/api/rss', template: '/api/rss' },
  { path: '/atom.xml', template: '/atom.xml' },
  { path: '/feed.json', template: '/feed.json' },
  { path: '/tags/testing/rss.xml', template: '/tags/{tag}/rss.xml' },
  { path: '/tags/no-such-tag/rss.xml', template: '/tags/{tag}/rss.xml' },
  { path: '/api/apps/fixture-app/download', template: '/api/apps/{slug}/download' },
  { path: '/api/apps/nope/download', template: '/api/apps/{slug}/download' },
  { path: '/llms.txt', template: '/llms.txt' },
  { path: '/llms-full.txt', template: '/llms-full.txt' },
  { path: '/pricing.md', template: '/pricing.md' },
  { path: '/openapi.json', template: '/openapi.json' },
  { path: '/.well-known/api-catalog', template: '/.well-known/api-catalog' },
  { path: '/sitemap.xml', template: '/sitemap.xml' },
  { path: '/robots.txt', template: '/robots.txt' },
  { path: '/tags/testing.md', template: '/tags/{tag}.md' },
  { path: '/tags/no-such-tag.md', template: '/tags/{tag}.md' },
  // Validators: a 304 to the ETag of what would be sent, a 412 to one that is not it.
  { path: '/api/blog', template: '/api/blog', headers: { 'If-None-Match': 'CURRENT' } },
  { path: '/api/blog', template: '/api/blog', headers: { 'If-Match': '"not-this-one"' } },
  { path: '/blog/alpha-post', template: '/blog/{slug}', headers: { 'If-Match': '"not-this-one"' } },
  { path: '/api/search?q=alpha', template: '/api/search', headers: { 'If-Match': '"not-this-one"' } },
  // Path parameters whose escapes do not decode.
  { path: '/blog/%FF', template: '/blog/{slug}' },
  { path: '/blog/%FF.md', template: '/blog/{slug}.md' },
  { path: '/api/blog/%FF/markdown', template: '/api/blog/{slug}/markdown' },
  { path: '/tags/%FF/rss.xml', template: '/tags/{tag}/rss.xml' },
  { path: '/tags/%FF.md', template: '/tags/{tag}.md' },
  { path: '/api/apps/%FF/download', template: '/api/apps/{slug}/download' },
];

describe('responses match /openapi.json', () => {
  it.each(CASES)('GET $path ($template) $headers', async ({ path, template, headers }) => {
    const spec = await loadSpec();
    let sent = headers;
    if (headers?.['If-None-Match'] === 'CURRENT') sent = { 'If-None-Match': (await get(path)).headers.get('etag') ?? '' };
    const response = await get(path, sent);
    if (headers?.['If-None-Match']) expect(response.status).toBe(304);
    if (headers?.['If-Match']) expect(response.status).toBe(412);
    if (path.includes('%FF')) expect(response.status).toBe(400);
    await expectDeclared(spec, 'get', template, response);
  });

  it('every fixed path the spec documents for GET answers as documented', async () => {
    const spec = await loadSpec();
    const fixed = Object.keys(spec.paths).filter((path) => !path.includes('{') && spec.paths[path]?.get);
    expect(fixed.length).toBeGreaterThan(15);
    for (const path of fixed) await expectDeclared(spec, 'get', path, await get(path));
  });

  it('/mcp answers as documented: a message, a notification, a batch, OPTIONS and the methods it refuses', async () => {
    const spec = await loadSpec();
    const from = freshAddress();
    const post = async (body: unknown) => {
      const raw = await request(new URL(url('/')).origin, '/mcp', {
        method: 'POST',
        from,
        headers: {
          Accept: 'application/json, text/event-stream',
          'Content-Type': 'application/json',
          'Content-Length': String(Buffer.byteLength(JSON.stringify(body))),
        },
        body: JSON.stringify(body),
      });
      const headers = new Headers();
      for (const [name, value] of Object.entries(raw.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      return new Response([202, 204].includes(raw.status) ? null : raw.body, { status: raw.status, headers });
    };
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect((await post(ping)).status).toBe(200);
    await expectDeclared(spec, 'post', '/mcp', await post(ping));
    await expectDeclared(spec, 'post', '/mcp', await post({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    await expectDeclared(spec, 'post', '/mcp', await post([ping, ping]));
    for (const method of ['options', 'get', 'delete']) await expectDeclared(spec, method, '/mcp', await get('/mcp', {}, method.toUpperCase()));
  });

  it('the payments webhook answers as documented', async () => {
    const spec = await loadSpec();
    const response = await fetch(url('/api/payments/webhook'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Stripe-Signature': 't=1,v1=00' },
      body: '{}',
    });
    await expectDeclared(spec, 'post', '/api/payments/webhook', response);
  });
});

describe('write responses match /openapi.json', () => {
  const posts: { path: string; body: unknown; headers?: Record<string, string> }[] = [
    { path: '/api/subscribe', body: { email: 'nope' } },
    { path: '/api/support', body: { name: 'N', email: 'n@example.com', subject: 'S', message: 'M' } },
    { path: '/api/payments/checkout', body: { product: 'fixture-book' } },
    { path: '/api/payments/training/checkout', body: { product: 'fixture-training' } },
    { path: '/api/payments/special-offer/checkout', body: { product: 'fixture-old-offer' } },
    { path: '/api/booking/cancel', body: { booking: 'bk_unknown000000', token: 'x'.repeat(32), confirm: 'yes' } },
    { path: '/api/booking/move', body: { booking: 'bk_unknown000000', token: 'x'.repeat(32), session: 'autumn' } },
    { path: '/api/index-notify', body: {} },
    { path: '/api/downloads/resend', body: { email: 'someone@example.com' } },
    { path: '/api/bounces/postmark', body: { RecordType: 'Bounce', ID: 1, Type: 'HardBounce' } },
    { path: '/api/subscribe/confirm', body: { token: 'x'.repeat(43) } },
    { path: '/api/subscribe/unsubscribe', body: { token: 'x'.repeat(43) } },
    { path: '/api/subscribe/unsubscribe', body: { 'List-Unsubscribe': 'One-Click' } },
  ];
  it.each(posts)('POST $path', async ({ path, body }) => {
    const spec = await loadSpec();
    const response = await fetch(url(path), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.headers.get('ratelimit-policy')).toMatch(/;q=\d+;w=\d+$/);
    expect(response.headers.get('content-type')).toMatch(/^application\/(problem\+)?json; charset=utf-8$/);
    await expectDeclared(spec, 'post', path, response);
  });
});

describe('every operation of /openapi.json', () => {
  it('has an operationId and was exercised above', async () => {
    const spec = await loadSpec();
    const documented = Object.entries(spec.paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, id: operation.operationId })),
    );
    for (const { name, id } of documented) expect(id, name).toMatch(/^[a-z]+[A-Z]/);
    expect(documented.map(({ name }) => name).filter((name) => !exercised.has(name))).toEqual([]);
  });
});

describe('checkout attempts in /openapi.json', () => {
  it('declares the attempt id of every checkout route with the form the pricing page sends, and the most seats one address may hold', async () => {
    const spec = await loadSpec();
    const ajv = new Ajv2020({ strict: false });
    const bodies: [string, Record<string, unknown>][] = [
      ['CheckoutRequest', { product: 'fixture-book' }],
      ['TrainingCheckoutRequest', { product: 'fixture-training', session: 'spring', seats: 2 }],
      ['SpecialOfferCheckoutRequest', { product: 'fixture-offer' }],
    ];
    for (const [name, body] of bodies) {
      const schema = spec.components.schemas[name] as { properties: Record<string, { description?: string }>; required?: string[] };
      expect(schema.properties.attempt?.description, name).toMatch(/same Checkout Session/);
      expect(schema.required ?? []).not.toContain('attempt');
      const validate = ajv.compile(schema);
      expect(validate({ ...body, attempt: '0123456789abcdef0123456789abcdef' }), name).toBe(true);
      expect(validate(body), name).toBe(true);
      expect(validate({ ...body, attempt: 'short' }), name).toBe(false);
      expect(validate({ ...body, attempt: 'x'.repeat(16).replace('x', '<') }), name).toBe(false);
    }
    const seats = (spec.components.schemas.TrainingCheckoutRequest as { properties: { seats: { maximum?: number; description?: string } } }).properties.seats;
    expect(seats.maximum).toBe(4);
    expect(seats.description).toMatch(/at most 4 seats at once/);
  });
});
