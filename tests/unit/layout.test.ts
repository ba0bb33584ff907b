import path from 'node:path';
import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');

/** What `npm run cycles` reads: every file of the site and its server. */
const SOURCES = ['lib', 'app', 'components', 'server.ts', 'proxy.ts', 'instrumentation.ts', 'next.config.ts'];

/**
 * The parts that must depend on one another in one direction only: the runtime (lib/runtime) joins
 * them, so none of them reaches back into another through a chain of imports.
 */
const PARTS = ['lib/services', 'lib/newsletter', 'lib/limits', 'lib/agents', 'lib/public-endpoints.ts'];

const partOf = (file: string) => PARTS.find((part) => file === part || file.startsWith(`${part}/`));

let graph: Record<string, string[]>;
let circular: string[][];

beforeAll(async () => {
  const result = await madge(
    SOURCES.map((source) => path.join(ROOT, source)),
    {
      baseDir: ROOT,
      fileExtensions: ['ts', 'tsx'],
      tsConfig: path.join(ROOT, 'tsconfig.json'),
    },
  );
  graph = result.obj();
  circular = result.circular();
}, 60_000);

/** Every cycle of parts: a path of imports that leaves a part and comes back to it, as the parts it passes. */
function partCycles(edges: Map<string, Set<string>>): string[][] {
  const cycles: string[][] = [];
  const walk = (start: string, at: string, trail: string[]) => {
    for (const next of edges.get(at) ?? []) {
      if (next === start) cycles.push([...trail, start]);
      else if (!trail.includes(next) && next > start) walk(start, next, [...trail, next]);
    }
  };
  for (const part of PARTS) walk(part, part, [part]);
  return cycles;
}

describe('the layout of lib/', () => {
  it('reads the sources (the check sees the files it is about)', () => {
    expect(Object.keys(graph)).toEqual(expect.arrayContaining(['server.ts', 'lib/runtime/index.ts', 'lib/public-endpoints.ts']));
    expect(graph['lib/runtime/index.ts']).toEqual(expect.arrayContaining(['lib/newsletter/index.ts', 'lib/limits/index.ts']));
  });

  it('has no import cycle between files', () => {
    expect(circular).toEqual([]);
  });

  it('has no cycle between the store and mail, the newsletter, the limits, the agents files and the public endpoints', () => {
    const edges = new Map<string, Set<string>>();
    const imports: { from: string; to: string; line: string }[] = [];
    for (const [file, imported] of Object.entries(graph).flatMap(([file, list]) => list.map((one) => [file, one] as const))) {
      const from = partOf(file);
      const to = partOf(imported);
      if (!from || !to || from === to) continue;
      edges.set(from, (edges.get(from) ?? new Set()).add(to));
      imports.push({ from, to, line: `${file} imports ${imported}` });
    }
    // Each cycle with the imports that make it, so a failure says which import to move.
    const explained = partCycles(edges).map((cycle) => ({
      cycle: cycle.join(' → '),
      imports: cycle.slice(1).flatMap((to, index) => imports.filter((edge) => edge.from === cycle[index] && edge.to === to).map((edge) => edge.line)),
    }));
    expect(explained).toEqual([]);
  });
});

describe('partCycles', () => {
  it('finds a cycle of two parts and of three, and none where imports go one way', () => {
    const edges = (pairs: [string, string][]) => {
      const map = new Map<string, Set<string>>();
      for (const [from, to] of pairs) map.set(from, (map.get(from) ?? new Set()).add(to));
      return map;
    };
    expect(
      partCycles(
        edges([
          ['lib/agents', 'lib/public-endpoints.ts'],
          ['lib/public-endpoints.ts', 'lib/agents'],
        ]),
      ),
    ).toEqual([['lib/agents', 'lib/public-endpoints.ts', 'lib/agents']]);
    expect(
      partCycles(
        edges([
          ['lib/newsletter', 'lib/services'],
          ['lib/services', 'lib/limits'],
          ['lib/limits', 'lib/newsletter'],
        ]),
      ),
    ).toHaveLength(1);
    expect(
      partCycles(
        edges([
          ['lib/newsletter', 'lib/services'],
          ['lib/agents', 'lib/limits'],
          ['lib/agents', 'lib/public-endpoints.ts'],
        ]),
      ),
    ).toEqual([]);
  });
});
