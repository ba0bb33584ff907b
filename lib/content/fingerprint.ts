import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A cheap summary of a content folder: every file's path, size and
 * modification time, hashed. Adding, editing, renaming or deleting a file
 * changes it; nothing is read but the folder listings and the files' metadata.
 */
export function contentFingerprint(root: string): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = fs.readdirSync(dir).sort();
    } catch {
      hash.update(`missing ${dir}\n`);
      return;
    }
    for (const name of names) {
      const file = path.join(dir, name);
      let stat: fs.Stats;
      try {
        stat = fs.statSync(file);
      } catch {
        continue; // removed while listing; the next look sees the folder without it
      }
      if (stat.isDirectory()) walk(file);
      else hash.update(`${path.relative(root, file)}\0${stat.size}\0${stat.mtimeMs}\n`);
    }
  };
  walk(root);
  return hash.digest('base64url');
}
