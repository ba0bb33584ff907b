import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '@/lib/server/node-flags';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe("lectern's threads", () => {
  it("keep the heap they are given in a process started with the server's flags", () => {
    // The server runs with --max-semi-space-size=16, a V8 flag of the whole process: each thread still has its own young generation.
    const output = execFileSync(
      process.execPath,
      [...SERVER_NODE_FLAGS, '--import', 'tsx', path.join(import.meta.dirname, 'fixtures/start-threads.ts'), '4', '48'],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    );
    const [small, large] = JSON.parse(output) as [number, number];
    // An old generation of 64 MiB and a young one of 4 MiB: well under the 64 + 48 MiB the process's flag would give.
    expect(small).toBeGreaterThanOrEqual(64);
    expect(small).toBeLessThanOrEqual(64 + 8);
    expect(large - small).toBeGreaterThanOrEqual(40);
  });
});
