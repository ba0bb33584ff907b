import { absoluteUrl, config } from '../config';
import { site } from '../content';
import { FEED_ITEM_COUNT } from '../feeds/feeds';
import { markdownTwinOf, NEGOTIATED_PATHS } from '../http/markdown-twins';
import { problemTypes } from '../http/problem';
import { SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX, SEARCH_QUERY_MAX_LENGTH } from '../search/site';

/** The docs page (`/docs/api`) and its markdown twin (`/docs/api.md`) say the same, from here. */
export const apiDocsFacts = () => ({
  title: 'API and agent files',
  description: `How to read ${site().name} from a program: endpoints, formats and errors.`,
  intro: 'Everything published here can be read without a key, an account or a rendered page. Read endpoints are never rate limited.',
});

export const readEndpoints: { path: string; type: string; what: string }[] = [
  { path: '/api/blog', type: 'application/json', what: 'Every published post, newest first: {"posts":[…]}. Optional limit: a positive integer.' },
  {
    path: '/api/search?q=…&limit=…',
    type: 'application/json',
    what: `Published posts matching every word of q (1 to ${SEARCH_QUERY_MAX_LENGTH} characters; prefixes and small typos match; title and tags weigh most), best first: {"query","total","results":[…]}, each result with slug, title, description, date, tags, url, markdownUrl and a plain-text snippet. limit: 1 to ${SEARCH_LIMIT_MAX}, default ${SEARCH_LIMIT_DEFAULT}.`,
  },
  { path: '/api/blog/{slug}/markdown', type: 'text/markdown', what: 'The markdown source of one post, YAML frontmatter first.' },
  { path: '/blog/{slug}.md', type: 'text/markdown', what: 'The same markdown, at the post URL plus .md.' },
  { path: '/blog/{slug} with Accept: text/markdown', type: 'text/markdown', what: 'The same markdown, chosen by content negotiation (q-values honoured; responses vary on Accept).' },
  { path: '/api/home/markdown', type: 'text/markdown', what: 'The homepage as markdown, with links to the latest posts.' },
  { path: '/api/rss', type: 'application/rss+xml', what: `RSS 2.0 feed of the newest ${FEED_ITEM_COUNT} posts, full HTML in content:encoded.` },
  { path: '/atom.xml', type: 'application/atom+xml', what: `Atom 1.0 feed of the newest ${FEED_ITEM_COUNT} posts, full HTML in content.` },
  { path: '/feed.json', type: 'application/feed+json', what: `JSON Feed 1.1 of the newest ${FEED_ITEM_COUNT} posts, full HTML in content_html.` },
  { path: '/tags/{tag}/rss.xml', type: 'application/rss+xml', what: `RSS 2.0 feed of the newest ${FEED_ITEM_COUNT} posts with one tag ({tag} as in the tag page URL /tags/{tag}).` },
  { path: '/api/apps/{slug}/download', type: '302 redirect', what: 'Redirects to the current build of a desktop app.' },
  {
    path: '/blog/page/{n}, /tags/{tag}/page/{n}',
    type: 'text/html',
    what: `Older posts, ${config().postsPerPage} a page, newest first, from page 2 (page 1 is /blog or /tags/{tag}), with rel="prev" and rel="next" links; a page past the last is a 404.`,
  },
];

/** The pages with a markdown twin, as the docs list them. */
export const markdownTwins: { page: string; markdown: string }[] = NEGOTIATED_PATHS.map((pattern) => {
  // Read from the one list of pages with a twin; a parameter is shown as {name}.
  const page = pattern.replace(/:(\w+)/g, '{$1}');
  return { page, markdown: markdownTwinOf(page)!.markdownPath };
});

export const markdownTwinsText = {
  lead: 'Every page with content of its own is also markdown, in two ways: its URL plus .md (/index.md for the home page), or its own URL with an Accept header that ranks text/markdown above text/html.',
  rules:
    'Markdown wins only when its q-value is strictly higher than HTML’s: a tie, */*, text/* or no Accept header gets HTML, which is what browsers get. Both variants send Vary: Accept. Each HTML page links its twin from its head (a link element with rel="alternate" and type="text/markdown") and with a Link header of the same; each twin names its page in a Link header with rel="canonical". Lists (the home page, the blog, tags) link every post to its markdown.',
};

/** `/docs/api.md`: the docs page as markdown. */
export function apiDocsMarkdown(): string {
  const { title, description, intro } = apiDocsFacts();
  const cell = (text: string) => text.replace(/\|/g, '\\|');
  return [
    `# ${title}`,
    '',
    `> ${description}`,
    '',
    intro,
    '',
    '## Read endpoints',
    '',
    '| GET | Content-Type | What it returns |',
    '|---|---|---|',
    ...readEndpoints.map((endpoint) => `| \`${endpoint.path}\` | \`${endpoint.type}\` | ${cell(endpoint.what)} |`),
    '',
    '## Pages as markdown',
    '',
    markdownTwinsText.lead,
    '',
    markdownTwinsText.rules,
    '',
    '| Page | Markdown |',
    '|---|---|',
    ...markdownTwins.map((twin) => `| \`${twin.page}\` | \`${twin.markdown}\` |`),
    '',
    '## Errors',
    '',
    'Errors from `/api/*` are RFC 9457 problem details (`application/problem+json`) with `type`, `title`, `status`, `detail`, and for invalid input `errors: [{path, message}]`. A markdown URL that finds nothing answers a short `text/markdown` 404.',
    '',
    ...Object.entries(problemTypes).map(([name, { status, title: problemTitle }]) => `- \`${name}\` (${status}): ${problemTitle}. ${absoluteUrl(`/docs/api#problem-${name}`)}`),
    '',
  ].join('\n');
}
