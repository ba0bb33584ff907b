import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** Runs one of scripts/ the way `npm run` does (tsx), with CONTENT_DIR set. */
export function runScript(script: string, args: string[], contentDir: string) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', script), ...args], {
    cwd: ROOT,
    env: { ...process.env, CONTENT_DIR: contentDir },
    encoding: 'utf8',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
