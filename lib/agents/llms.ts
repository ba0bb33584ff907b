import { absoluteUrl } from '../runtime/site';
import { publishedPosts, site } from '../content';
import { llmsEntries, mcpServer, type LlmsSection } from '../public-endpoints';
import { LICENSE_PATH, reuseRule, usageRule } from './terms';

/** Text placed inside `[...]` of a link line: the llmstxt.org pattern allows no brackets there. */
function linkTitle(text: string): string {
  return text.replace(/\[/g, '(').replace(/\]/g, ')').replace(/\s+/g, ' ').trim();
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function linkLine(title: string, url: string, description: string): string {
  return `- [${linkTitle(title)}](${url}): ${oneLine(description)}`;
}

/** The link lines of one section, from the one list of public endpoints. */
function sectionLines(section: LlmsSection): string[] {
  return llmsEntries(section).map((entry) => linkLine(entry.title, absoluteUrl(entry.path), entry.description));
}

/** /llms.txt in the llmstxt.org layout: H1, summary quote, guidance, link sections, Optional last. */
export function llmsTxt(): string {
  const { name, summary, citation } = site();
  const posts = publishedPosts().map((post) => linkLine(post.title, post.markdownUrl, `${post.description} (${post.date})`));
  return [
    `# ${oneLine(name)}`,
    '',
    `> ${oneLine(summary)}`,
    '',
    `${oneLine(citation)} ${reuseRule()} ${usageRule()} The licence: ${absoluteUrl(LICENSE_PATH)} (RSL 1.0). Every page is available as markdown at its URL plus \`.md\` (\`/index.md\` for the home page), or at its own URL with \`Accept: text/markdown\`.`,
    '',
    '## Posts',
    '',
    ...posts,
    '',
    '## Pages',
    '',
    ...sectionLines('pages'),
    '',
    '## Agent files',
    '',
    ...sectionLines('agent-files'),
    linkLine(mcpServer.title, absoluteUrl(mcpServer.docs), `${mcpServer.description} Endpoint: ${absoluteUrl(mcpServer.path)}`),
    '',
    '## Optional',
    '',
    ...sectionLines('optional'),
    '',
  ].join('\n');
}
