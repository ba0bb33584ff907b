import { licenseRoute } from '../routes/manifest';
import { absoluteUrl } from '../runtime/site';
import { problem } from '../http/problem';

/**
 * THE statement of what the site allows automated users to do with its content. Every form of
 * it is made here, from this one object: Cloudflare's Content-Signal and the IETF AIPREF
 * Content-Usage (robots.txt rules and HTTP header), the RSL 1.0 licence at /license.xml, the
 * reuse rule in words (footer, llms.txt, llms-full.txt), and which crawlers are refused
 * outright. Change the terms here and every form follows.
 */
export const TERMS = {
  /** Building a search index and showing results that link here with short excerpts. */
  search: true,
  /** Feeding the content to an AI model while it answers (retrieval, grounding). */
  aiInput: true,
  /** Training or fine-tuning AI models on it. */
  aiTrain: false,
  /** Quoting short excerpts: allowed, on these conditions. */
  excerpts: { attribution: true, link: true },
  /** Republishing whole articles elsewhere. */
  republishWhole: false,
} as const;

const yesNo = (allowed: boolean) => (allowed ? 'yes' : 'no');
const yN = (allowed: boolean) => (allowed ? 'y' : 'n');

/** Cloudflare's Content Signals (contentsignals.org), in every robots.txt group and on markdown and agent files. */
export const CONTENT_SIGNAL = `search=${yesNo(TERMS.search)}, ai-input=${yesNo(TERMS.aiInput)}, ai-train=${yesNo(TERMS.aiTrain)}`;

/**
 * The IETF AIPREF preference (draft-ietf-aipref-vocab: categories `train-ai`, `ai-use`, `search`,
 * values `y`/`n`, a structured-field dictionary), for the `Content-Usage` header and, after a
 * path, the `Content-Usage:` rule of robots.txt (draft-ietf-aipref-attach).
 */
export const CONTENT_USAGE = `train-ai=${yN(TERMS.aiTrain)}, ai-use=${yN(TERMS.aiInput)}, search=${yN(TERMS.search)}`;

/** Where the RSL 1.0 licence is served, and its media type. */
export const LICENSE_PATH = licenseRoute.path;
export const RSL_TYPE = licenseRoute.type;
export const RSL_NAMESPACE = 'https://rslstandard.org/rsl';

/** The reuse rule in words, for people and for agents that read prose. */
export function reuseRule(): string {
  const conditions = [TERMS.excerpts.attribution ? 'attribution' : '', TERMS.excerpts.link ? 'a link to the original' : ''].filter(Boolean);
  return [
    `Short excerpts are allowed${conditions.length ? ` with ${conditions.join(' and ')}` : ''}.`,
    TERMS.republishWhole ? 'Whole articles may be republished.' : 'Republishing whole articles is not permitted.',
  ].join(' ');
}

/** The automated uses in words: what the Content-Signal and Content-Usage lines say. */
export function usageRule(): string {
  const welcome = [TERMS.search ? 'search indexing' : '', TERMS.aiInput ? 'use as AI input (retrieval, grounding)' : ''].filter(Boolean);
  const sentence = welcome.length ? `${welcome.join(' and ').replace(/^./, (first) => first.toUpperCase())} are welcome` : '';
  const training = TERMS.aiTrain ? 'training AI models on it is allowed' : 'training AI models on it is not';
  return sentence ? `${sentence}; ${training}.` : `${training.replace(/^./, (first) => first.toUpperCase())}.`;
}

/**
 * The licence as RSL 1.0 (rslstandard.org/rsl): one `<content>` for the whole site, whose
 * `<license>` permits the allowed uses (`search`, `ai-input`), prohibits the rest (`ai-train`)
 * and asks for attribution as its payment; `<terms>` points at the rule in words (llms.txt).
 */
export function rslLicense(copyrightHolder: string): string {
  const permits = [TERMS.search ? 'search' : '', TERMS.aiInput ? 'ai-input' : '', TERMS.aiTrain ? 'ai-train' : ''].filter(Boolean);
  const prohibits = [!TERMS.search ? 'search' : '', !TERMS.aiInput ? 'ai-input' : '', !TERMS.aiTrain ? 'ai-train' : ''].filter(Boolean);
  const payment = TERMS.excerpts.attribution ? 'attribution' : 'free';
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<rsl xmlns="${RSL_NAMESPACE}">`,
    `  <content url="${escapeXml(absoluteUrl('/'))}">`,
    '    <license>',
    ...(permits.length ? [`      <permits type="usage">${permits.join(' ')}</permits>`] : []),
    ...(prohibits.length ? [`      <prohibits type="usage">${prohibits.join(' ')}</prohibits>`] : []),
    `      <payment type="${payment}"/>`,
    '    </license>',
    `    <copyright type="person">${escapeXml(copyrightHolder)}</copyright>`,
    `    <terms>${escapeXml(absoluteUrl('/llms.txt'))}</terms>`,
    '  </content>',
    '</rsl>',
    '',
  ].join('\n');
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Media types whose body is the site's content: each carries the Content-Usage header. */
const CONTENT_TYPES = new Set(['text/html', 'text/markdown', 'application/json', 'application/feed+json', 'application/rss+xml', 'application/atom+xml']);

/** Whether a response of this Content-Type is content the terms speak of (a page, markdown, a feed, a JSON list). */
export function carriesContentUsage(contentType: string): boolean {
  return CONTENT_TYPES.has(contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '');
}

/** The RSL licence as a Link header value (rel="license"), for answers that point at it. */
export function licenseLink(): string {
  return `<${absoluteUrl(LICENSE_PATH)}>; rel="license"; type="${RSL_TYPE}"`;
}

// --- Crawlers --------------------------------------------------------------

/** Crawlers that collect training corpora: `Disallow: /` in robots.txt, and refused with 403 (TRAINING_CRAWLERS_REFUSED). */
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

/** Search and retrieval agents: welcome, never refused. */
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

/** What a refused crawler may still read: the rules themselves (robots.txt, the licence, llms.txt). */
export const OPEN_TO_ALL_CRAWLERS: readonly string[] = ['/robots.txt', LICENSE_PATH, '/llms.txt', '/.well-known/llms.txt'];

/**
 * A training crawler's product token, as its User-Agent carries it (`…; GPTBot/1.1; +https://…`):
 * the token whole, not inside another (`Claude-User` is not `ClaudeBot`), any case.
 */
const TRAINING_CRAWLER_PATTERN = new RegExp(
  `(?:^|[^a-z0-9_-])(?:${TRAINING_CRAWLERS.map((token) => token.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|')})(?![a-z0-9_-])`,
  'i',
);

export function isTrainingCrawler(userAgent: string | undefined): boolean {
  return userAgent !== undefined && TRAINING_CRAWLER_PATTERN.test(userAgent);
}

/** Whether a GET of `pathname` by this User-Agent is refused: a training crawler, on anything but the rules. */
export function refusesCrawler(userAgent: string | undefined, pathname: string): boolean {
  return !OPEN_TO_ALL_CRAWLERS.includes(pathname) && isTrainingCrawler(userAgent);
}

/**
 * The answer to a refused crawler: 403 problem details pointing at robots.txt and the licence
 * (also as a Link header). Never stored by any cache (the `refusal` profile): the same URL is a
 * 200 for everyone else.
 */
export function crawlerRefusal(): Response {
  return problem(
    'training-crawler',
    `Crawlers that collect AI training data are refused here. The terms: ${absoluteUrl('/robots.txt')} and the licence at ${absoluteUrl(LICENSE_PATH)}. Search and retrieval agents are welcome.`,
    { cache: 'refusal', headers: { Link: licenseLink() } },
  );
}
