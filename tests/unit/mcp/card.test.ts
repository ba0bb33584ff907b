import { describe, expect, it } from 'vitest';
import { mcpServerCard } from '@/lib/mcp/card';
import { setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();

describe('the MCP server card', () => {
  it('names the server, its Streamable HTTP endpoint and what initialize, tools/list and resources/list answer', async () => {
    const card = await mcpServerCard();
    expect(card).toMatchObject({
      name: 'Fixture & Co',
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
      websiteUrl: 'http://localhost:3000/',
      remotes: [{ type: 'streamable-http', url: 'http://localhost:3000/mcp' }],
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    });
    expect(card.tools.map((tool) => tool.name).sort()).toEqual(['fetch', 'get_post', 'list_posts', 'search', 'search_posts']);
    expect(card.resources.map((resource) => resource.uri).sort()).toEqual(['http://localhost:3000/llms.txt', 'http://localhost:3000/pricing.md']);
  });
});
