import { describe, expect, it } from 'vitest';
import { robotsTxt, SEARCH_AGENTS, TRAINING_CRAWLERS } from '@/lib/agents/robots';
import { FIXTURE_SITE, withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

/** robots.txt's groups: the agent, its Content-Signal, its Content-Usage rule, its rule for / and what else it may fetch. */
function groups(text: string) {
  return [...text.matchAll(/^User-agent: (.+)\nContent-Signal: (.+)\nContent-Usage: (.+)\n(Allow|Disallow): (\/)\n((?:Allow: .+\n)*)/gm)].map(
    ([, agent, signal, usage, rule, path, also]) => ({ agent, signal, usage, rule, path, also: also?.split('\n').filter(Boolean) }),
  );
}

describe('robots.txt', () => {
  const text = robotsTxt();
  const byAgent = new Map(groups(text).map((group) => [group.agent, group]));

  it('declares the terms in every group, as a Content-Signal and as an AIPREF Content-Usage rule for the whole site', () => {
    expect(byAgent.size).toBe(1 + SEARCH_AGENTS.length + TRAINING_CRAWLERS.length);
    for (const group of byAgent.values()) {
      expect(group.signal).toBe('search=yes, ai-input=yes, ai-train=no');
      expect(group.usage).toBe('/ train-ai=n, ai-use=y, search=y');
    }
  });

  it('refuses training crawlers everything and lets search agents and everyone else in', () => {
    for (const agent of TRAINING_CRAWLERS) {
      expect(byAgent.get(agent)).toMatchObject({ rule: 'Disallow', path: '/', also: ['Allow: /license.xml', 'Allow: /llms.txt'] });
    }
    for (const agent of ['*', ...SEARCH_AGENTS]) expect(byAgent.get(agent)).toMatchObject({ rule: 'Allow', path: '/' });
  });

  it('names the sitemap and the licence under the site URL and carries the policy as comments', () => {
    expect(text).toContain(`\nSitemap: ${FIXTURE_SITE}/sitemap.xml\n`);
    expect(text).toContain(`\nLicense: ${FIXTURE_SITE}/license.xml\n`);
    expect(text.startsWith('# As a condition of accessing this website')).toBe(true);
  });
});
