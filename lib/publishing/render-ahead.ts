import { builtPosts, site } from '../content';
import { renderMarkdown } from '../content/render';
import { absoluteUrl, clock } from '../runtime/site';

/**
 * Renders the posts dated after `now` and no later than `until` before their time, as the outputs
 * that show them render them at it: the post's page; with the page's URL as base, the feeds; and
 * the newsletter's mail. Each goes to the build's cache (lib/content/kept.ts), where every copy of
 * lib/ in the process (Next's bundles, lectern's server) finds it, so at the post's time none of them
 * runs the markdown pipeline or inlines the mail's styles on the thread that answers readers (at
 * 1,000 posts each of those held every read up for 0.3 to 0.8 s). Nothing is served from here: what
 * is kept is found only by the hash of its text, and read only by an output showing a live post.
 * Returns how many posts were rendered.
 */
export async function renderAhead(until: number, now: number = clock()): Promise<number> {
  const due = builtPosts().filter((post) => post.dateMillis > now && post.dateMillis <= until);
  if (due.length === 0) return 0;
  // Loaded only where a post is due: the mail's inliner and image converter are large.
  const { mailSiteOf, renderNewsletterMail } = await import('../newsletter/mail');
  const mailSite = mailSiteOf(site(), absoluteUrl('/'));
  for (const post of due) {
    await renderMarkdown(post.body);
    await renderMarkdown(post.body, { baseUrl: post.url });
    if (post.newsletter) await renderNewsletterMail(post, mailSite);
  }
  return due.length;
}
