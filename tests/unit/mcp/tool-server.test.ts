import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '@/lib/mcp/tool-server';
import { setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();

const FIXTURE = path.resolve('tests/fixtures/content');
type Text = { type: 'text'; text: string };

describe('the MCP server, through an in-memory transport', () => {
  const client = new Client({ name: 'lectern-unit-test', version: '1.0.0' });
  const server = createMcpServer();

  beforeAll(async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('is named after the site and offers five read-only tools', async () => {
    expect(client.getServerVersion()?.name).toBe('Fixture & Co');
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['fetch', 'get_post', 'list_posts', 'search', 'search_posts']);
    for (const tool of tools) expect(tool.annotations?.readOnlyHint, tool.name).toBe(true);
  });

  it('announces no list changes: it has no stream to send them on', () => {
    const capabilities = client.getServerCapabilities();
    expect(capabilities?.tools?.listChanged).toBe(false);
    expect(capabilities?.resources?.listChanged).toBe(false);
  });

  it('search answers {results: [{id, title, url}]} as its first content item, JSON text, as structured content, and links each result', async () => {
    const result = await client.callTool({ name: 'search', arguments: { query: 'alpha' } });
    const content = result.content as { type: string; text?: string; uri?: string; name?: string }[];
    const found = result.structuredContent as { results: { id: string; title: string; url: string }[] };
    expect(found.results[0]).toMatchObject({ id: 'alpha-post', title: 'Alpha post' });
    expect(found.results[0]?.url).toMatch(/^http:\/\/localhost:3000\/blog\/alpha-post(#[a-z0-9-]+)?$/);
    // The connectors that call search read the first item, the JSON text; the links follow it.
    expect(content[0]?.type).toBe('text');
    expect(JSON.parse(content[0]!.text!)).toEqual(found);
    expect(content.slice(1)).toEqual(found.results.map((hit) => expect.objectContaining({ type: 'resource_link', uri: hit.url, name: hit.title })));
  });

  it('fetch gives {id, title, text, url, metadata} of a published post, and an error for anything else', async () => {
    const result = await client.callTool({ name: 'fetch', arguments: { id: 'alpha-post' } });
    const document = result.structuredContent as { id: string; text: string; url: string; metadata: { markdownUrl: string } };
    expect(document).toMatchObject({ id: 'alpha-post', title: 'Alpha post', url: 'http://localhost:3000/blog/alpha-post' });
    expect(document.text).toBe(fs.readFileSync(path.join(FIXTURE, 'posts', 'alpha-post.md'), 'utf8'));
    expect(document.metadata.markdownUrl).toBe('http://localhost:3000/blog/alpha-post.md');
    expect(result.content).toHaveLength(2);
    expect((result.content as { type: string; uri?: string }[])[1]).toMatchObject({ type: 'resource_link', uri: 'http://localhost:3000/blog/alpha-post' });
    for (const id of ['draft-post', 'future-post', 'no-such-post'])
      expect((await client.callTool({ name: 'fetch', arguments: { id } })).isError, id).toBe(true);
  });

  it('get_post gives the source file of a published post, byte for byte', async () => {
    const result = await client.callTool({ name: 'get_post', arguments: { slug: 'alpha-post' } });
    expect(result.isError).toBeFalsy();
    expect((result.content as Text[])[0]?.text).toBe(fs.readFileSync(path.join(FIXTURE, 'posts', 'alpha-post.md'), 'utf8'));
    expect(result.structuredContent).toMatchObject({ slug: 'alpha-post', url: 'http://localhost:3000/blog/alpha-post' });
    expect((result.content as { type: string; uri?: string }[])[1]).toMatchObject({ type: 'resource_link', uri: 'http://localhost:3000/blog/alpha-post' });
  });

  it('get_post answers a draft, a future post and an unknown slug with an error the model can read, naming the tools that list slugs', async () => {
    for (const slug of ['draft-post', 'future-post', 'no-such-post']) {
      const result = await client.callTool({ name: 'get_post', arguments: { slug } });
      expect(result.isError, slug).toBe(true);
      expect((result.content as Text[])[0]?.text).toContain('list_posts');
    }
  });

  it('list_posts gives the newest published posts, no draft or future post, as structured content and as text', async () => {
    const result = await client.callTool({ name: 'list_posts', arguments: { limit: 2 } });
    const list = result.structuredContent as { posts: { slug: string }[] };
    expect(list.posts).toHaveLength(2);
    expect(JSON.parse((result.content as Text[])[0]!.text)).toEqual(list);
    const all = (await client.callTool({ name: 'list_posts', arguments: {} })).structuredContent as { posts: { slug: string }[] };
    expect(all.posts.map((post) => post.slug)).not.toContain('draft-post');
    expect(all.posts.map((post) => post.slug)).not.toContain('future-post');
  });

  it('search_posts finds a post by its title and never a draft', async () => {
    const found = (await client.callTool({ name: 'search_posts', arguments: { query: 'alpha' } })).structuredContent as { results: { slug: string }[] };
    expect(found.results[0]?.slug).toBe('alpha-post');
    const secret = (await client.callTool({ name: 'search_posts', arguments: { query: 'secret' } })).structuredContent as { total: number };
    expect(secret.total).toBe(0);
  });

  it('refuses arguments outside a tool’s schema', async () => {
    const result = await client.callTool({ name: 'list_posts', arguments: { limit: 0 } });
    expect(result.isError).toBe(true);
  });

  it('offers llms.txt and pricing.md as markdown resources at their site URLs', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual(['http://localhost:3000/llms.txt', 'http://localhost:3000/pricing.md']);
    const llms = await client.readResource({ uri: 'http://localhost:3000/llms.txt' });
    expect(llms.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    expect((llms.contents[0] as { text: string }).text).toMatch(/^# Fixture & Co/);
  });
});
