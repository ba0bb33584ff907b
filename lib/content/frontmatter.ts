import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { parse, YAMLParseError } from 'yaml';

export type SplitSource = { data: unknown; body: string };

const OPENING = /^---\r?\n/;
const CLOSING = /^---[ \t]*(?:\r?\n|$)/m;

/**
 * Splits a markdown file into its YAML frontmatter and body.
 * YAML 1.2 core schema: dates stay strings, duplicate keys are errors.
 */
export function splitFrontmatter(source: string): SplitSource {
  const opening = OPENING.exec(source);
  if (!opening) throw new Error('must start with a YAML frontmatter block opened by "---"');
  const rest = source.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) throw new Error('frontmatter is not closed by a "---" line');
  const yamlText = rest.slice(0, closing.index);
  let data: unknown;
  try {
    data = parse(yamlText, { uniqueKeys: true, prettyErrors: false }) ?? {};
  } catch (error) {
    const reason = error instanceof YAMLParseError ? error.message.split('\n')[0] : String(error);
    throw new Error(`frontmatter is not valid YAML: ${reason}`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new Error('frontmatter must be a YAML mapping of keys to values');
  }
  return { data, body: rest.slice(closing.index + closing[0].length) };
}

/**
 * Whether a file's frontmatter, read as CommonMark (as a markdown twin serves it, frontmatter
 * and all), turns into a heading: its last lines are a paragraph, and the closing `---` under a
 * paragraph is a setext underline, so `tags: [http, caching]` becomes an `<h2>`. A blank line
 * before the closing `---` makes it a thematic break instead.
 */
export function frontmatterRendersAsHeading(source: string): boolean {
  const opening = OPENING.exec(source);
  if (!opening) return false;
  const rest = source.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return false;
  const block = source.slice(0, opening[0].length + closing.index + closing[0].length);
  const tree = unified().use(remarkParse).parse(block);
  return tree.children.some((node) => node.type === 'heading');
}
