import { absoluteUrl } from '../config';
import { CONTENT_SIGNAL } from '../http/responses';

/** Crawlers that collect training corpora: refused. */
export const TRAINING_CRAWLERS = [
  'GPTBot',
  'ClaudeBot',
  'anthropic-ai',
  'CCBot',
  'Google-Extended',
  'Applebot-Extended',
  'Bytespider',
  'meta-externalagent',
  'cohere-training-data-crawler',
] as const;

/** Search and retrieval agents: welcome. */
export const SEARCH_AGENTS = [
  'OAI-SearchBot',
  'ChatGPT-User',
  'Claude-SearchBot',
  'Claude-User',
  'PerplexityBot',
  'Perplexity-User',
  'Googlebot',
  'Bingbot',
] as const;

const POLICY = `# As a condition of accessing this website, you agree to abide by the following content signals:
# (a)  If a content-signal = yes, you may collect content for the corresponding use.
# (b)  If a content-signal = no, you may not collect content for the corresponding use.
# (c)  If the website operator does not include a content signal for a corresponding use, the website operator neither grants nor restricts permission via content signal with respect to the corresponding use.
#
# The content signals and their meanings are:
#
# search:   building a search index and providing search results (e.g., returning hyperlinks and short excerpts from your website's contents). Search does not include providing AI-generated search summaries.
# ai-input: inputting content into one or more AI models (e.g., retrieval augmented generation, grounding, or other real-time taking of content for generative AI search answers).
# ai-train: training or fine-tuning AI models.
#
# ANY RESTRICTIONS EXPRESSED VIA CONTENT SIGNALS ARE EXPRESS RESERVATIONS OF RIGHTS UNDER ARTICLE 4 OF THE EUROPEAN UNION DIRECTIVE 2019/790 ON COPYRIGHT AND RELATED RIGHTS IN THE DIGITAL SINGLE MARKET.`;

function group(agent: string, rule: 'Allow' | 'Disallow'): string {
  return `User-agent: ${agent}\nContent-Signal: ${CONTENT_SIGNAL}\n${rule}: /\n`;
}

export function robotsTxt(): string {
  return [
    POLICY,
    '',
    group('*', 'Allow'),
    ...SEARCH_AGENTS.map((agent) => group(agent, 'Allow')),
    ...TRAINING_CRAWLERS.map((agent) => group(agent, 'Disallow')),
    `Sitemap: ${absoluteUrl('/sitemap.xml')}`,
    '',
  ].join('\n');
}
