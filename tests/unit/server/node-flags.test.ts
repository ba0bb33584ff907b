import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_ARGS } from '@/lib/server/node-flags';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

/** The words after the Node.js binary in a command line, up to and with server.ts. */
function serverArgs(command: string): string[] {
  const words = command.trim().split(/\s+/);
  const node = words.findIndex((word) => word === 'node' || word.endsWith('/.bin/node'));
  const server = words.indexOf('server.ts');
  if (node < 0 || server < node) throw new Error(`not a server start: ${command}`);
  return words.slice(node + 1, server + 1);
}

describe("the server's Node.js flags", () => {
  it('are the same wherever the server is started: npm start, npm run dev, systemd and the container', () => {
    expect(serverArgs(scripts.start ?? '')).toEqual(SERVER_ARGS);
    expect(serverArgs(scripts.dev ?? '')).toEqual(SERVER_ARGS);
    const execStart = /^ExecStart=(.*)$/m.exec(read('deploy/lectern.service'))?.[1] ?? '';
    expect(serverArgs(execStart)).toEqual(SERVER_ARGS);
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(read('deploy/Containerfile'))?.[1] ?? '[]') as string[];
    expect(serverArgs(cmd.join(' '))).toEqual(SERVER_ARGS);
  });
});
