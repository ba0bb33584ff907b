/**
 * The words of a markdown body as a reader sees them, for snippets: no code
 * blocks, markup, HTML tags, link targets or table rules. A few regular
 * expressions rather than a markdown parser: a snippet needs the words, not
 * the structure, and this runs on every result of every query.
 */
export function markdownToPlainText(markdown: string): string {
  return (
    markdown
      // Fenced code blocks (``` or ~~~) hold no prose.
      .replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?(?:^ {0,3}\1[^\S\n]*$|(?![\s\S]))/gm, ' ')
      // HTML comments and tags (the renderer strips scripts anyway; their text is not prose).
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<\/?[a-z][^>]*>/gi, ' ')
      // Images keep their alt text, links their text.
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
      .replace(/^ {0,3}\[[^\]]+\]:.*$/gm, ' ')
      // Inline code keeps its text.
      .replace(/`+([^`]*)`+/g, '$1')
      // Headings, quotes, list markers, task boxes, table rules and pipes.
      .replace(/^ {0,3}#{1,6}\s+/gm, '')
      .replace(/^ {0,3}(?:>\s?)+/gm, '')
      .replace(/^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?/gm, '')
      .replace(/^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$/gm, ' ')
      .replace(/\|/g, ' ')
      .replace(/^ {0,3}(?:[-*_]\s*){3,}$/gm, ' ')
      // Emphasis markers around words; an escaped marker is a character, and an underscore inside a word marks nothing.
      .replace(/(?<!\\)(\*{1,3}|~~)(?=\S)([^*~\n]*?[^\s\\])\1/g, '$2')
      .replace(/(?<![\\\p{L}\p{N}])(_{1,3})(?=\S)([^_\n]*?[^\s\\])\1(?![\p{L}\p{N}])/gu, '$2')
      .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1')
      .replace(/\s+/g, ' ')
      .trim()
  );
}
