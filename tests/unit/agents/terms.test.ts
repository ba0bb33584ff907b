import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CONTENT_SIGNAL,
  CONTENT_USAGE,
  crawlerRefusal,
  isTrainingCrawler,
  LICENSE_PATH,
  refusesCrawler,
  reuseRule,
  SEARCH_AGENTS,
  TRAINING_CRAWLERS,
  usageRule,
} from '@/lib/agents/terms';
import { FIXTURE_SITE, withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

/** User-Agent strings as the crawlers send them. */
const TRAINING_USER_AGENTS = [
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
  'CCBot/2.0 (https://commoncrawl.org/faq/)',
  'Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)',
  'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
  'anthropic-ai',
  'cohere-training-data-crawler',
  'gptbot/1.0',
];
const WELCOME_USER_AGENTS = [
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-SearchBot/1.0; +https://www.anthropic.com)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  'NotGPTBotAtAll/1.0',
  'my-CCBot-fork/1.0',
];

describe('the terms in their short forms', () => {
  it('says search yes, AI input yes, AI training no in both vocabularies', () => {
    expect(CONTENT_SIGNAL).toBe('search=yes, ai-input=yes, ai-train=no');
    expect(CONTENT_USAGE).toBe('train-ai=n, ai-use=y, search=y');
  });

  it('says the reuse rule and the uses in words', () => {
    expect(reuseRule()).toBe('Short excerpts are allowed with attribution and a link to the original. Republishing whole articles is not permitted.');
    expect(usageRule()).toBe('Search indexing and use as AI input (retrieval, grounding) are welcome; training AI models on it is not.');
  });
});

describe('training crawlers', () => {
  it('are recognised by their product token, whole, in any case', () => {
    for (const agent of TRAINING_USER_AGENTS) expect(isTrainingCrawler(agent), agent).toBe(true);
    for (const agent of WELCOME_USER_AGENTS) expect(isTrainingCrawler(agent), agent).toBe(false);
    expect(isTrainingCrawler(undefined)).toBe(false);
    for (const agent of SEARCH_AGENTS) expect(isTrainingCrawler(`${agent}/1.0`), agent).toBe(false);
  });

  it('are refused everything but robots.txt, the licence and llms.txt', () => {
    const gptBot = TRAINING_USER_AGENTS[0];
    for (const pathname of ['/', '/blog/alpha-post', '/blog/alpha-post.md', '/api/rss', '/feed.json', '/llms-full.txt', '/api/blog', '/mcp']) {
      expect(refusesCrawler(gptBot, pathname), pathname).toBe(true);
    }
    for (const pathname of ['/robots.txt', LICENSE_PATH, '/llms.txt', '/.well-known/llms.txt']) expect(refusesCrawler(gptBot, pathname), pathname).toBe(false);
    expect(refusesCrawler(WELCOME_USER_AGENTS[0], '/blog/alpha-post')).toBe(false);
  });

  it('get a 403 problem that points at robots.txt and the licence, which no cache keeps', async () => {
    const response = crawlerRefusal();
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('link')).toBe(`<${FIXTURE_SITE}/license.xml>; rel="license"; type="application/rsl+xml"`);
    const body = (await response.json()) as { status: number; detail: string };
    expect(body.status).toBe(403);
    expect(body.detail).toContain(`${FIXTURE_SITE}/robots.txt`);
    expect(body.detail).toContain(`${FIXTURE_SITE}/license.xml`);
  });

  it('are the ones deploy/nginx.conf keeps out of its cache, matched as lectern matches them', () => {
    const config = fs.readFileSync(path.resolve(import.meta.dirname, '../../../deploy/nginx.conf'), 'utf8');
    const map = /map \$http_user_agent \$training_crawler \{\n\s*default 0;\n\s*"~\*(.+)" 1;\n\}/.exec(config);
    expect(map?.[1]).toBeDefined();
    const pattern = new RegExp(map?.[1] ?? '', 'i');
    const tokens = /\(([a-z|-]+)\)/.exec(map?.[1] ?? '')?.[1]?.split('|');
    expect(tokens).toEqual(TRAINING_CRAWLERS.map((token) => token.toLowerCase()));
    for (const agent of [...TRAINING_USER_AGENTS, ...WELCOME_USER_AGENTS]) expect(pattern.test(agent), agent).toBe(isTrainingCrawler(agent));
    expect(config).toMatch(
      /proxy_cache_bypass \$training_crawler \$http_signature_agent \$mcp;\n\s*proxy_no_cache \$training_crawler \$http_signature_agent \$mcp;/,
    );
  });
});
