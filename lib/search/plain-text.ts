/**
 * Each step of markdownToPlainText: a pattern and its replacement, run only
 * when the text holds the character the pattern needs (most sections have no
 * table, quote or HTML: the check is far cheaper than the pattern).
 */
const STEPS: [needs: string | RegExp, pattern: RegExp, replacement: string][] = [
  // Fenced code blocks (``` or ~~~) hold no prose.
  [/```|~~~/, /^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[^\S\n]*$|(?![\s\S]))/gm, ' '],
  // HTML comments and tags (the renderer strips scripts anyway; their text is not prose).
  ['<', /<!--[\s\S]*?-->/g, ' '],
  ['<', /<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' '],
  ['<', /<\/?[a-z][^>]*>/gi, ' '],
  // Images keep their alt text, links their text.
  ['](', /!\[([^\]]*)\]\([^)]*\)/g, '$1'],
  ['](', /\[([^\]]*)\]\([^)]*\)/g, '$1'],
  ['][', /\[([^\]]*)\]\[[^\]]*\]/g, '$1'],
  [']:', /^ {0,3}\[[^\]]+\]:.*$/gm, ' '],
  // Inline code keeps its text.
  ['`', /`+([^`]*)`+/g, '$1'],
  // Headings, quotes, list markers, task boxes, table rules and pipes.
  ['#', /^ {0,3}#{1,6}\s+/gm, ''],
  ['>', /^ {0,3}(?:>\s?)+/gm, ''],
  [/^\s*(?:[-*+]|\d+[.)])\s/m, /^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/gm, ''],
  ['-', /^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/gm, ' '],
  ['|', /\|/g, ' '],
  [/^ {0,3}[-*_]/m, /^ {0,3}(?:[-*_]\s*){3,}$/gm, ' '],
  // Emphasis markers around words; an escaped marker is a character, and an underscore inside a word marks nothing.
  [/[*~]/, /(?<!\\)(\*{1,3}|~~)(?=\S)([^*~\n]*?[^\s\\])\1/g, '$2'],
  ['_', /(?<![\\\p{L}\p{N}])(_{1,3})(?=\S)([^_\n]*?[^\s\\])\1(?![\p{L}\p{N}])/gu, '$2'],
  ['\\', /\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1'],
  // Runs of white space become one space (a single space, the common case, is left as it is).
  [/\s/, /\s{2,}|[^\S ]/g, ' '],
];

/**
 * The words of a markdown body as a reader sees them, for snippets: no code
 * blocks, markup, HTML tags, link targets or table rules. A few regular
 * expressions rather than a markdown parser: a snippet needs the words, not
 * the structure, and this runs on every section of every post indexed.
 */
export function markdownToPlainText(markdown: string): string {
  let text = markdown;
  for (const [needs, pattern, replacement] of STEPS) {
    if (typeof needs === 'string' ? text.includes(needs) : needs.test(text)) text = text.replace(pattern, replacement);
  }
  return text.trim();
}
