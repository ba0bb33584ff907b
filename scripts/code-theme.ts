/**
 * Writes app/code-theme.css, the code colours as classes (lib/content/code-theme.ts).
 * Run after changing the highlighting themes or the code background:
 *   npx tsx scripts/code-theme.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import { codeThemeCss } from '../lib/content/code-theme';

const file = path.resolve(import.meta.dirname, '../app/code-theme.css');
fs.writeFileSync(file, codeThemeCss());
console.log(`wrote ${path.relative(process.cwd(), file)}`);
