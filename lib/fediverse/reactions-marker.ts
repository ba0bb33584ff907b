/**
 * Where a post's page shows what came back from the fediverse (likes, reposts, approved replies): an
 * element the page renders empty, with its content set by `dangerouslySetInnerHTML`, so React's
 * hydration leaves whatever lectern's server put in it (./reactions-page.ts) as it is. Plain data:
 * the page (app/blog/[slug]/page.tsx) and the server read it.
 */
export const REACTIONS_ELEMENT = { className: 'fediverse-reactions', 'data-fediverse': 'reactions' } as const;

/** The element as React renders it empty: what the server looks for in a page's HTML. */
export const EMPTY_REACTIONS_HTML = '<section class="fediverse-reactions" data-fediverse="reactions"></section>';
