/*
 * The list headers of a newsletter message. A module of its own, importing nothing: the newsletter's
 * mail thread (lib/newsletter/mail-thread-worker.ts) adds them to each reader's copy and loads no more
 * than it needs.
 */

/** Where a newsletter message lets its reader leave: the page with a button, and the one-click address. */
export type UnsubscribeLinks = { page: string; oneClick: string };

/** RFC 2369 List-Unsubscribe with RFC 8058 one-click: a provider's POST of `List-Unsubscribe=One-Click` unsubscribes. */
export function newsletterHeaders(unsubscribe: UnsubscribeLinks): Record<string, string> {
  return { 'List-Unsubscribe': `<${unsubscribe.oneClick}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}
