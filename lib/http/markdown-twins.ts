import { markdownTwinRoutes } from '../routes/manifest';

/**
 * Every page with content of its own has a markdown twin: the same content as
 * markdown, at `<path>.md` (`/index.md` for the home page) and at the page's
 * own URL for a client that ranks `text/markdown` above HTML
 * (lib/http/negotiate.ts). The pages that only answer a form (sent, confirmed,
 * cancelled) and the pages made from a link's token have none. Which pages have
 * one is the route manifest's (`markdownTwinRoutes` in lib/routes/manifest.ts);
 * everything here is derived from it.
 *
 * proxy.ts reaches the twins from here (through lib/http/negotiate.ts, which also
 * tells the read cache which variant to key and the response head when to vary
 * on Accept), and each page's metadata links its twin (lib/seo.ts).
 */

/** Pages with a twin at a fixed URL, served by a static route of that path. */
const FIXED_TWINS = new Map<string, string>(Object.entries(markdownTwinRoutes.fixed));

const SECTIONS = Object.keys(markdownTwinRoutes.sections).join('|');

/**
 * Every page with a twin as a path pattern (`:name` is one segment): the URLs
 * whose body depends on `Accept`. A host that runs Next.js without lectern's
 * server gets their `Vary: Accept` from its own header rules (vercel.json),
 * since Next replaces the `Vary` of its pages.
 */
export const NEGOTIATED_PATHS = [...FIXED_TWINS.keys(), ...Object.entries(markdownTwinRoutes.sections).map(([section, param]) => `/${section}/:${param}`)];

/** Pages with a parameter (`/blog/{slug}`, `/tags/{tag}`); their `.md` URL is rewritten to `/{section}/{param}/index.md`. */
const SECTIONED = new RegExp(`^/(${SECTIONS})/([^/]+)$`);
/** The `.md` URL of such a page. */
const SECTIONED_MARKDOWN = new RegExp(`^/(${SECTIONS})/([^/]+)\\.md$`);

export type MarkdownTwin = {
  /** The twin's public URL path. */
  markdownPath: string;
  /** The static route that renders it, where proxy.ts sends a negotiated request. */
  route: string;
};

/** The markdown twin of an HTML page's path, or undefined when the path is no such page. */
export function markdownTwinOf(pathname: string): MarkdownTwin | undefined {
  const fixed = FIXED_TWINS.get(pathname);
  if (fixed) return { markdownPath: fixed, route: fixed };
  const match = SECTIONED.exec(pathname);
  if (!match || pathname.endsWith('.md')) return undefined;
  return { markdownPath: `${pathname}.md`, route: `/${match[1]}/${match[2]}/index.md` };
}

/** The route behind a `.md` URL with a parameter (`/blog/{slug}.md`, `/tags/{tag}.md`), or undefined. */
export function markdownUrlRoute(pathname: string): string | undefined {
  const match = SECTIONED_MARKDOWN.exec(pathname);
  return match ? `/${match[1]}/${match[2]}/index.md` : undefined;
}
