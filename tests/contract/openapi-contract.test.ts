import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { get, url } from '../support/http';

type Spec = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: object }> }> }>>;
  components: { schemas: Record<string, object> };
};

async function loadSpec(): Promise<Spec> {
  return (await (await get('/openapi.json')).json()) as Spec;
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
];

describe('responses match /openapi.json', () => {
  it.each(CASES)('GET $path ($template)', async ({ path, template, headers }) => {
    const spec = await loadSpec();
    const ajv = new Ajv2020({ strict: false });
    const response = await get(path, headers);
    const declared = spec.paths[template]?.get?.responses[String(response.status)];
    expect(declared, `status ${response.status} declared for ${template}`).toBeDefined();
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0] ?? '';
    if (!declared?.content) return;
    const content = Object.entries(declared.content).find(([type]) => type.split(';')[0] === mediaType);
    expect(content, `${mediaType} declared for ${response.status}`).toBeDefined();
    const schema = content?.[1].schema;
    if (schema && /json/.test(mediaType)) {
      // The components travel with the schema so `#/components/...` references resolve as in the document.
      const validate = ajv.compile({ ...schema, components: spec.components });
      const body: unknown = await response.json();
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    }
  });
});

describe('write responses match /openapi.json', () => {
  const posts: { path: string; body: unknown; headers?: Record<string, string> }[] = [
    { path: '/api/subscribe', body: { email: 'nope' } },
    { path: '/api/support', body: { name: 'N', email: 'n@example.com', subject: 'S', message: 'M' } },
    { path: '/api/payments/checkout', body: { product: 'fixture-book' } },
    { path: '/api/payments/special-offer/checkout', body: { product: 'fixture-old-offer' } },
    { path: '/api/booking/cancel', body: { booking: 'bk_unknown000000', token: 'x'.repeat(32) } },
    { path: '/api/index-notify', body: {} },
    { path: '/api/subscribe/confirm', body: { token: 'x'.repeat(43) } },
    { path: '/api/subscribe/unsubscribe', body: { token: 'x'.repeat(43) } },
    { path: '/api/subscribe/unsubscribe', body: { 'List-Unsubscribe': 'One-Click' } },
  ];
  it.each(posts)('POST $path', async ({ path, body }) => {
    const spec = (await (await get('/openapi.json')).json()) as Spec & {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, { schema?: object }>; headers?: Record<string, unknown> }> }>
      >;
    };
    const ajv = new Ajv2020({ strict: false });
    const response = await fetch(url(path), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const declared = spec.paths[path]?.post?.responses[String(response.status)];
    expect(declared, `status ${response.status} declared for POST ${path}`).toBeDefined();
    expect(response.headers.get('ratelimit-policy')).toMatch(/;q=\d+;w=\d+$/);
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0] ?? '';
    const content = Object.entries(declared?.content ?? {}).find(([type]) => type === mediaType);
    expect(content, `${mediaType} declared for ${response.status}`).toBeDefined();
    const validate = ajv.compile({ ...(content?.[1].schema ?? {}), components: spec.components });
    const payload: unknown = await response.json();
    expect(validate(payload), JSON.stringify(validate.errors)).toBe(true);
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
