import { absoluteUrl } from '../runtime/site';
import { CONTENT_SIGNAL, CONTENT_USAGE, LICENSE_PATH, SEARCH_AGENTS, TRAINING_CRAWLERS } from './terms';

export { SEARCH_AGENTS, TRAINING_CRAWLERS } from './terms';

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

/**
 * One group: the agent, the terms in both vocabularies (Cloudflare's Content-Signal, and the
 * IETF AIPREF Content-Usage rule with the path it covers), and whether it may crawl. A training
 * crawler may still fetch the licence and llms.txt, which say the same in full.
 */
function group(agent: string, rule: 'Allow' | 'Disallow'): string {
  const open = rule === 'Disallow' ? [LICENSE_PATH, '/llms.txt'].map((path) => `Allow: ${path}\n`).join('') : '';
  return `User-agent: ${agent}\nContent-Signal: ${CONTENT_SIGNAL}\nContent-Usage: / ${CONTENT_USAGE}\n${rule}: /\n${open}`;
}

export function robotsTxt(): string {
  return [
    POLICY,
    '',
    group('*', 'Allow'),
    ...SEARCH_AGENTS.map((agent) => group(agent, 'Allow')),
    ...TRAINING_CRAWLERS.map((agent) => group(agent, 'Disallow')),
    `Sitemap: ${absoluteUrl('/sitemap.xml')}`,
    // RSL 1.0: the licence these rules stand for.
    `License: ${absoluteUrl(LICENSE_PATH)}`,
    '',
  ].join('\n');
}
