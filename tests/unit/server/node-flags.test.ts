import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_ARGS, SERVER_ENV } from '@/lib/server/node-flags';

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

/** The `NAME=value` words of a command line between `env` and the Node.js binary. */
function envWords(command: string): Record<string, string> {
  const words = command.trim().split(/\s+/);
  const env = words.indexOf('env');
  const node = words.findIndex((word) => word === 'node' || word.endsWith('/.bin/node'));
  if (env < 0 || env > node) return {};
  return Object.fromEntries(words.slice(env + 1, node).map((word) => word.split('=', 2) as [string, string]));
}

/** The variables of a systemd unit's `Environment=` lines or a Containerfile's `ENV` lines. */
function declared(file: string, keyword: RegExp): Record<string, string> {
  const lines = read(file)
    .split('\n')
    .filter((line) => keyword.test(line));
  return Object.fromEntries(lines.flatMap((line) => line.replace(keyword, '').trim().split(/\s+/)).map((word) => word.split('=', 2) as [string, string]));
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

  it('come with the same environment wherever the server is started', () => {
    expect(Object.keys(SERVER_ENV).length).toBeGreaterThan(0);
    expect(envWords(scripts.start ?? '')).toEqual(SERVER_ENV);
    expect(envWords(scripts.dev ?? '')).toEqual(SERVER_ENV);
    expect(declared('deploy/lectern.service', /^Environment=/)).toMatchObject(SERVER_ENV);
    expect(declared('deploy/Containerfile', /^ENV /)).toMatchObject(SERVER_ENV);
  });
});
