import { describe, expect, it } from 'vitest';
import { robotsTxt, SEARCH_AGENTS, TRAINING_CRAWLERS } from '@/lib/agents/robots';
import { FIXTURE_SITE, withFixtureContent } from '../../support/fixture-content';

withFixtureContent();

/** robots.txt's groups: the agent, its Content-Signal and its rule. */
function groups(text: string) {
  return [...text.matchAll(/^User-agent: (.+)\nContent-Signal: (.+)\n(Allow|Disallow): (.+)$/gm)].map(([, agent, signal, rule, path]) => ({
    agent,
    signal,
    rule,
    path,
  }));
}

describe('robots.txt', () => {
  const text = robotsTxt();
  const byAgent = new Map(groups(text).map((group) => [group.agent, group]));

  it('declares the Content-Signal in every group', () => {
    expect(byAgent.size).toBe(1 + SEARCH_AGENTS.length + TRAINING_CRAWLERS.length);
    for (const group of byAgent.values()) expect(group.signal).toBe('search=yes, ai-input=yes, ai-train=no');
  });

  it('refuses training crawlers everything and lets search agents and everyone else in', () => {
    for (const agent of TRAINING_CRAWLERS) expect(byAgent.get(agent)).toMatchObject({ rule: 'Disallow', path: '/' });
    for (const agent of ['*', ...SEARCH_AGENTS]) expect(byAgent.get(agent)).toMatchObject({ rule: 'Allow', path: '/' });
  });

  it('names the sitemap under the site URL and carries the policy as comments', () => {
    expect(text).toContain(`\nSitemap: ${FIXTURE_SITE}/sitemap.xml\n`);
    expect(text.startsWith('# As a condition of accessing this website')).toBe(true);
  });
});
