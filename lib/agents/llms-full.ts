import { absoluteUrl } from '../runtime/site';
import { publishedPosts, site } from '../content';
import { LICENSE_PATH, reuseRule, usageRule } from './terms';

/**
 * /llms-full.txt: every published post, newest first, each headed by title,
 * canonical URL and dates, the reuse rule on top. Built once at build time
 * (a static route), from the parts already in memory.
 */
export function llmsFullTxt(): string {
  const { name, summary } = site();
  const terms = `${reuseRule()} ${usageRule()} Licence: ${absoluteUrl(LICENSE_PATH)}.`;
  const parts = [`# ${name}: every post in full\n\n> ${summary}\n\n${terms} Source: ${absoluteUrl('/')}\n`];
  for (const post of publishedPosts()) {
    parts.push(
      [
        '',
        '---',
        '',
        `# ${post.title}`,
        '',
        `URL: ${post.url}`,
        `Published: ${post.date}`,
        ...(post.updated ? [`Updated: ${post.updated}`] : []),
        ...(post.tags.length > 0 ? [`Tags: ${post.tags.join(', ')}`] : []),
        '',
        post.body.trim(),
        '',
      ].join('\n'),
    );
  }
  return parts.join('');
}
