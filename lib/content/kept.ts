import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { nodeEnv } from '../settings';

/**
 * Work kept between builds: a production build or server keeps each result in Next's build
 * cache folder (`.next/cache`, which `next build` leaves in place and CI can keep), under a hash
 * of what it was made from and of the renderer's version (next.config.ts hashes lib/content,
 * the card's component, public/ and the lockfile into it). An unchanged post skips the markdown
 * pipeline and the drawing of its card. lectern's server keeps its own renders under the version
 * of the build it serves (lib/runtime/site.ts), so a post rendered before its time by the server is
 * read at its time by Next's bundles. Development makes everything afresh, as the code may be
 * changing, and so does code run outside Next's bundles and the server (tests, scripts), which has
 * no version.
 */
export type Kept = (kind: string, key: string, make: () => Promise<Buffer>) => Promise<Buffer>;

/** What is kept in `build.distDir`'s cache, under `build.rendererVersion` (none kept without one). */
export function keptIn(build: { distDir: string; rendererVersion: string | undefined }): Kept {
  return (kind, key, make) => kept(build, kind, key, make);
}

async function kept(
  { distDir, rendererVersion }: { distDir: string; rendererVersion: string | undefined },
  kind: string,
  key: string,
  make: () => Promise<Buffer>,
): Promise<Buffer> {
  if (!rendererVersion || nodeEnv() === 'development') return make();
  const hash = createHash('sha256').update(rendererVersion).update('\0').update(key).digest('hex');
  const file = path.join(distDir, 'cache', `lectern-${kind}`, hash.slice(0, 2), hash);
  try {
    return await fs.promises.readFile(file);
  } catch {
    // Not kept yet (or unreadable): make it.
  }
  const made = await make();
  try {
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    // Written aside and renamed: two workers making the same thing never leave half a file.
    const temporary = `${file}.${process.pid}`;
    await fs.promises.writeFile(temporary, made);
    await fs.promises.rename(temporary, file);
  } catch {
    // A read-only deployment keeps nothing; the result is still served.
  }
  return made;
}
