import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { absoluteUrl } from '../runtime/site';
import { site } from '../content';
import { MCP_PATH, MCP_PROTOCOL_VERSIONS } from '../agents/mcp-names';
import { createMcpServer } from './tool-server';

/**
 * The MCP server card at /.well-known/mcp.json (SEP-2127, a draft: the fields
 * its examples share with the registry's server.json): who the server is, where
 * its Streamable HTTP endpoint is, and what it offers. Everything but the
 * endpoint is asked of the server itself, through the SDK's client, so the card
 * names exactly what `initialize`, `tools/list` and `resources/list` answer; `protocolVersion` is the
 * newest revision served and `supportedProtocolVersions` every one.
 */
export async function mcpServerCard() {
  const client = new Client({ name: 'lectern-server-card', version: '1.0.0' });
  const server = createMcpServer();
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  try {
    const info = client.getServerVersion();
    const { tools } = await client.listTools();
    const { resources } = await client.listResources();
    return {
      name: info?.name ?? site().name,
      version: info?.version,
      description: site().summary,
      websiteUrl: absoluteUrl('/'),
      protocolVersion: MCP_PROTOCOL_VERSIONS[0],
      supportedProtocolVersions: MCP_PROTOCOL_VERSIONS,
      remotes: [{ type: 'streamable-http', url: absoluteUrl(MCP_PATH) }],
      capabilities: client.getServerCapabilities() ?? {},
      instructions: client.getInstructions(),
      tools: tools.map(({ name, title, description, annotations }) => ({ name, title, description, annotations })),
      resources: resources.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
    };
  } finally {
    await client.close();
    await server.close();
  }
}
