import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openApiDocument } from '@/lib/agents/openapi';
import { settings } from '@/lib/settings';
import { otherRouteLimits, routeLimits, writeRouteLimits } from '@/lib/limits/table';
import { writeRoutes } from '@/lib/write-routes';
import { setWriteRouteSettings } from '../../support/write-routes';

setWriteRouteSettings();

type Operation = {
  summary: string;
  description: string;
  responses: Record<string, unknown>;
  requestBody: { content: Record<string, { schema: { $ref: string } }> };
};

describe('the write-route registry', () => {
  it('names each route and path once', () => {
    expect(new Set(writeRoutes.map((route) => route.name)).size).toBe(writeRoutes.length);
    expect(new Set(writeRoutes.map((route) => route.path)).size).toBe(writeRoutes.length);
  });

  it('is the limits table: every route with its path, requests and window, and nothing else but the MCP endpoint', () => {
    expect(writeRouteLimits).toEqual(Object.fromEntries(writeRoutes.map((route) => [route.name, { path: route.path, ...route.limit }])));
    expect(Object.keys(routeLimits).sort()).toEqual([...writeRoutes.map((route) => route.name), ...Object.keys(otherRouteLimits)].sort());
  });

  it("is /openapi.json's write routes: each path with its summary, limit, own statuses and request schema", () => {
    const document = openApiDocument(settings().site);
    const paths = document.paths as unknown as Record<string, { post?: Operation }>;
    const limitedPosts = Object.entries(paths)
      .filter(([, item]) => item.post?.description?.startsWith('Rate limited'))
      .map(([path]) => path);
    expect(limitedPosts.sort()).toEqual([...writeRoutes.map((route) => route.path), otherRouteLimits.mcp.path].sort());
    for (const route of writeRoutes) {
      const operation = paths[route.path]?.post;
      expect(operation?.summary).toBe(route.summary);
      expect(operation?.description).toContain(`${route.limit.requests} requests per ${route.limit.windowSeconds / 60} minutes`);
      expect(Object.keys(operation?.responses ?? {})).toEqual(
        expect.arrayContaining(['200', '400', '405', '413', '415', '429', ...Object.keys(route.responses ?? {})]),
      );
      for (const [status, response] of Object.entries(route.responses ?? {})) expect(operation?.responses[status]).toEqual(response);
      const reference = operation?.requestBody.content['application/json']?.schema.$ref ?? '';
      const component = (document.components.schemas as Record<string, unknown>)[reference.replace('#/components/schemas/', '')];
      // A provider's webhook takes the fields it does not read (Postmark adds fields to its payloads); every form is strict.
      if (route.name === 'postmarkBounces') expect(component).toMatchObject({ type: 'object', additionalProperties: {} });
      else expect(component).toMatchObject({ type: 'object', additionalProperties: false });
      expect(Object.keys((component as { properties: object }).properties).sort()).toEqual(Object.keys((route.schema as z.ZodObject).shape).sort());
    }
  });

  it('gives a honeypot answer to every route whose form has the hidden field, and to no other', () => {
    for (const route of writeRoutes) {
      expect([route.name, Boolean(route.honeypot)]).toEqual([route.name, 'website' in (route.schema as z.ZodObject).shape]);
    }
  });

  it('is answered by app/api/[...path]/route.ts alone: no route file of its own stands in front of a write route', () => {
    expect(fs.readFileSync('app/api/[...path]/route.ts', 'utf8')).toMatch(
      /^export const \{ POST, GET, PUT, PATCH, DELETE, OPTIONS \} = writeRouteHandlers\(services, settings\);$/m,
    );
    for (const route of writeRoutes) expect(fs.existsSync(`app${route.path}/route.ts`), route.path).toBe(false);
  });
});
