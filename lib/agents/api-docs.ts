import { absoluteUrl } from '../runtime/site';
import { site } from '../content';
import { markdownTwinOf, NEGOTIATED_PATHS } from '../http/markdown-twins';
import { problemTypes } from '../http/problem';
import { publicEndpoints, type DocsSettings } from '../public-endpoints';

/** The docs page (`/docs/api`) and its markdown twin (`/docs/api.md`) say the same, from here. */
export const apiDocsFacts = () => ({
  title: 'API and agent files',
  description: `How to read ${site().name} from a program: endpoints, formats and errors.`,
  intro: 'Everything published here can be read without a key, an account or a rendered page. Read endpoints are never rate limited.',
});

/** The rows of the read-endpoint table: the entries of the one list of public endpoints that the docs describe. */
export function readEndpoints(site: DocsSettings): { path: string; type: string; what: string }[] {
  return publicEndpoints().flatMap(({ path, type, docs }) =>
    docs ? [{ path: docs.path ?? path, type: docs.type ?? type, what: typeof docs.text === 'string' ? docs.text : docs.text(site) }] : [],
  );
}

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
export function apiDocsMarkdown(site: DocsSettings): string {
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
    ...readEndpoints(site).map((endpoint) => `| \`${endpoint.path}\` | \`${endpoint.type}\` | ${cell(endpoint.what)} |`),
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
    ...Object.entries(problemTypes).map(
      ([name, { status, title: problemTitle }]) => `- \`${name}\` (${status}): ${problemTitle}. ${absoluteUrl(`/docs/api#problem-${name}`)}`,
    ),
    '',
  ].join('\n');
}
