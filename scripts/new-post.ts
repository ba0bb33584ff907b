/**
 * Starts a post: writes CONTENT_DIR/posts/<slug>.md, a draft dated today (UTC)
 * whose frontmatter already passes validation, and prints its path. Never
 * overwrites a file.
 *   npm run new-post -- "ETags and conditional requests"
 */
import fs from 'node:fs';
import path from 'node:path';
import { newPostSource, slugFromTitle } from '../lib/content/new-post';
import { settings } from '../lib/settings';

const title = process.argv.slice(2).join(' ').trim();
if (!title) {
  console.error('Usage: npm run new-post -- "Title of the post"');
  process.exit(1);
}
const slug = slugFromTitle(title);
if (!slug) {
  console.error(`No slug can be made from "${title}": a slug needs letters a-z or digits. Give a title with some, and change it afterwards if you like.`);
  process.exit(1);
}
const file = path.join(settings().site.contentDir, 'posts', `${slug}.md`);
const relative = path.relative(process.cwd(), file);
const shown = relative.startsWith('..') ? file : relative;
fs.mkdirSync(path.dirname(file), { recursive: true });
try {
  fs.writeFileSync(file, newPostSource(title, new Date().toISOString().slice(0, 10)), { flag: 'wx' });
} catch (error) {
  if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  console.error(`${shown} already exists; nothing was written. Choose another title or edit that file.`);
  process.exit(1);
}
console.log(shown);
