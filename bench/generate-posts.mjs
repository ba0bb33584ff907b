// Writes a content folder of N realistic posts for build benchmarks: frontmatter as the
// author's guide in README.md asks (title, description, date, optional updated, tags),
// bodies of about 900 words with ## and ### sections, paragraphs with inline code, links
// and emphasis, bulleted, numbered and task lists, a table, fenced code in several
// languages, sometimes a quote or a diagram. site.yaml, home.md, apps/, products/ and deliverables/ are
// copied from content/. The same N and seed always give the same files.
//   node bench/generate-posts.mjs <out dir> <count> [--seed=1]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const REPO = path.resolve(import.meta.dirname, '..');

/** mulberry32: a small seeded PRNG, so every run writes the same posts. */
export function prng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TAGS = [
  'http',
  'caching',
  'performance',
  'agents',
  'seo',
  'markdown',
  'rss',
  'security',
  'accessibility',
  'typography',
  'feeds',
  'crawlers',
  'json-ld',
  'sitemaps',
  'robots',
  'cdn',
  'nginx',
  'node',
  'testing',
  'writing',
  'design',
  'privacy',
  'email',
  'search',
];
const SUBJECTS = [
  'conditional requests',
  'cache headers',
  'feed readers',
  'content negotiation',
  'structured data',
  'sitemaps',
  'robots.txt rules',
  'rate limits',
  'long-form typography',
  'link previews',
  'static generation',
  'markdown sources',
  'crawl budgets',
  'canonical URLs',
  'image dimensions',
  'security headers',
  'web fonts',
  'reading time',
  'tag pages',
  'redirects',
  'error pages',
  'compression',
  'HTTP validators',
  'agent files',
];
const VERBS = [
  'checking',
  'serving',
  'caching',
  'testing',
  'measuring',
  'naming',
  'versioning',
  'publishing',
  'debugging',
  'documenting',
  'shrinking',
  'linking',
];
const QUALIFIERS = [
  'in practice',
  'without surprises',
  'for small sites',
  'the boring way',
  'step by step',
  'for two readers',
  'that last',
  'done right',
  'on a budget',
  'at the edge',
];
const WORDS = (
  'the a an this that every each some most few server client browser crawler reader agent request response header body page post feed cache proxy origin ' +
  'validator date tag link title summary section list table file folder build deploy release version policy rule limit window token key value field ' +
  'keeps sends reads writes checks answers stores serves builds renders parses caches compresses validates repeats ignores trusts expects returns ' +
  'quickly quietly honestly rarely often always never carefully plainly simply exactly mostly usually ' +
  'small large stale fresh strong weak public private static dynamic cheap costly clear simple broken correct stable plain useful ' +
  'with without before after because when while until unless since for from into over under through'
).split(' ');
const CODE_BLOCKS = [
  [
    'http',
    (r) =>
      `GET /blog/${r.slug} HTTP/1.1\nHost: example.com\nIf-None-Match: "${r.hex(12)}"\n\nHTTP/1.1 304 Not Modified\nETag: "${r.hex(12)}"\nCache-Control: public, max-age=300`,
  ],
  [
    'bash',
    (r) =>
      `curl -sI https://example.com/blog/${r.slug} \\\n  -H 'Accept: text/markdown' | grep -i -E '^(content-type|vary|etag):'\nfor i in $(seq ${r.int(2, 9)}); do curl -s -o /dev/null -w '%{http_code}\\n' https://example.com/api/rss; done`,
  ],
  [
    'ts',
    (r) =>
      `export function ${r.ident()}(input: string, limit = ${r.int(5, 60)}): string[] {\n  const seen = new Set<string>();\n  for (const part of input.split(',')) {\n    const value = part.trim().toLowerCase();\n    if (value && !seen.has(value)) seen.add(value);\n    if (seen.size >= limit) break;\n  }\n  return [...seen];\n}`,
  ],
  [
    'json',
    (r) =>
      `{\n  "slug": "${r.slug}",\n  "title": "${r.title.replaceAll('"', '')}",\n  "tags": [${r.tags.map((tag) => `"${tag}"`).join(', ')}],\n  "words": ${r.int(400, 2000)},\n  "draft": false\n}`,
  ],
  [
    'yaml',
    (r) =>
      `title: ${r.title}\ndate: ${r.date}\ntags: [${r.tags.join(', ')}]\ncache:\n  max_age: ${r.int(60, 600)}\n  stale_while_revalidate: ${r.int(1000, 90000)}`,
  ],
  [
    'css',
    (r) =>
      `.post {\n  max-width: ${r.int(60, 75)}ch;\n  margin-inline: auto;\n  line-height: 1.${r.int(4, 7)};\n}\n.post h2 {\n  margin-block: ${r.int(2, 3)}rem 1rem;\n  font-size: 1.${r.int(3, 6)}rem;\n}`,
  ],
  [
    'xml',
    (r) =>
      `<item>\n  <title>${r.title.replaceAll('&', 'and')}</title>\n  <link>https://example.com/blog/${r.slug}</link>\n  <guid isPermaLink="true">https://example.com/blog/${r.slug}</guid>\n  <pubDate>Mon, 0${r.int(1, 9)} Jun 2025 08:00:00 GMT</pubDate>\n</item>`,
  ],
  [
    'nginx',
    (r) =>
      `location /blog/ {\n  proxy_pass http://127.0.0.1:${r.int(3000, 3999)};\n  proxy_cache_valid 200 ${r.int(1, 10)}m;\n  add_header X-Cache $upstream_cache_status;\n}`,
  ],
];
const IMAGES = [
  ['conditional-get.svg', 'Sequence diagram of a conditional GET answered with 304 Not Modified.'],
  ['content-negotiation.svg', 'Diagram of one URL answering HTML or markdown depending on the Accept header.'],
  ['llms-txt-map.svg', 'Map of the agent files a site publishes and what each one links to.'],
  ['token-bucket.svg', 'Diagram of a token bucket refilling over time.'],
];

/**
 * The words of the site's own posts (content/posts, frontmatter and code blocks left out) with
 * how often each occurs, for posts whose text follows real frequencies: the site's common words
 * ("the", but also "http", "page", "feed") then appear in most generated posts, as in a real
 * site's, and its rare ones in few.
 */
export function realVocabulary(dir = path.join(REPO, 'content', 'posts')) {
  const counts = new Map();
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.md'))) {
    const body = fs
      .readFileSync(path.join(dir, file), 'utf8')
      .replace(/^---\n[\s\S]*?\n---\n/, '')
      .replace(/^```[\s\S]*?^```/gm, ' ');
    for (const word of body.match(/[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]/g) ?? []) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const words = [...counts.keys()];
  const cumulative = new Float64Array(words.length);
  let total = 0;
  words.forEach((word, i) => (cumulative[i] = total += counts.get(word)));
  return { words, counts, cumulative, total };
}

/** A word drawn from `vocabulary` with its real frequency (binary search over the running counts). */
function weightedPicker(vocabulary, random) {
  const { words, cumulative, total } = vocabulary;
  return () => {
    const target = random() * total;
    let low = 0;
    let high = words.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle] <= target) low = middle + 1;
      else high = middle;
    }
    return words[low];
  };
}

function writer(random, vocabulary) {
  const pick = (list) => list[Math.floor(random() * list.length)];
  const int = (low, high) => low + Math.floor(random() * (high - low + 1));
  const word = vocabulary ? weightedPicker(vocabulary, random) : () => pick(WORDS);
  const words = (count) => Array.from({ length: count }, () => word()).join(' ');
  const sentence = (slugs) => {
    const parts = [words(int(4, 9))];
    const extra = random();
    if (extra < 0.18)
      parts.push(`\`${pick(['Cache-Control', 'ETag', 'Vary', 'If-None-Match', 'max-age=300', 'rel="canonical"', 'text/markdown', 'Last-Modified', '304'])}\``);
    else if (extra < 0.3) parts.push(`**${words(2)}**`);
    else if (extra < 0.38) parts.push(`_${words(2)}_`);
    else if (extra < 0.46 && slugs.length) parts.push(`[${words(3)}](/blog/${pick(slugs)})`);
    parts.push(words(int(3, 10)));
    const text = parts.join(' ');
    return `${text[0].toUpperCase()}${text.slice(1)}.`;
  };
  const paragraph = (slugs) => Array.from({ length: int(2, 5) }, () => sentence(slugs)).join(' ');
  return { pick, int, words, sentence, paragraph, hex: (n) => Array.from({ length: n }, () => int(0, 15).toString(16)).join('') };
}

function titleCase(text) {
  return text[0].toUpperCase() + text.slice(1);
}

/** One post: frontmatter and a body of about 900 words; with `vocabulary` (realVocabulary()), its text's words follow that vocabulary's frequencies. */
export function makePost(index, count, random, vocabulary) {
  const w = writer(random, vocabulary);
  const subject = w.pick(SUBJECTS);
  const title = titleCase(`${w.pick(VERBS)} ${subject} ${w.pick(QUALIFIERS)}`);
  const slug = `${title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')}-${String(index + 1).padStart(5, '0')}`;
  // Spread over ten years, all in the past, so every post is published.
  const day = Date.UTC(2015, 0, 1) + Math.floor(((index + 0.5) / count) * 3650) * 86_400_000;
  const date = new Date(day).toISOString().slice(0, 10);
  const updated = random() < 0.25 ? new Date(day + w.int(1, 200) * 86_400_000).toISOString().slice(0, 10) : undefined;
  const tags = [...new Set(Array.from({ length: w.int(1, 4) }, () => w.pick(TAGS)))];
  const neighbours = [index - 1, index - 2, index + 1].filter((n) => n >= 0 && n < count).map((n) => `post-${n}`);
  const context = {
    slug,
    title,
    date,
    tags,
    int: w.int,
    hex: w.hex,
    ident: () => `${w.pick(VERBS)}${titleCase(w.pick(['headers', 'tags', 'links', 'dates', 'feeds']))}`,
  };
  const description =
    `${titleCase(w.words(w.int(10, 18)))}, and what ${subject} ${w.pick(['changes', 'costs', 'breaks', 'buys'])} for readers and agents.`.slice(0, 280);

  const body = [w.paragraph(neighbours), w.paragraph(neighbours)];
  const sections = w.int(4, 6);
  const codeAt = new Set([w.int(0, sections - 1), w.int(0, sections - 1)]);
  const tableAt = w.int(0, sections - 1);
  for (let s = 0; s < sections; s += 1) {
    body.push(`## ${titleCase(w.words(w.int(2, 5)))}`, w.paragraph(neighbours));
    if (s === tableAt) {
      const columns = w.int(3, 4);
      const header = Array.from({ length: columns }, () => titleCase(w.words(1)));
      const rows = Array.from(
        { length: w.int(3, 6) },
        () => `| ${Array.from({ length: columns }, (_, c) => (c === 0 ? `\`${w.words(1)}\`` : w.words(w.int(1, 4)))).join(' | ')} |`,
      );
      body.push([`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows].join('\n'));
    }
    if (codeAt.has(s)) {
      const [language, make] = w.pick(CODE_BLOCKS);
      body.push(`\`\`\`${language}\n${make(context)}\n\`\`\``);
    }
    const extra = random();
    if (extra < 0.35) body.push(Array.from({ length: w.int(3, 6) }, () => `- ${w.sentence(neighbours)}`).join('\n'));
    else if (extra < 0.55) body.push(Array.from({ length: w.int(3, 5) }, (_, i) => `${i + 1}. ${w.sentence(neighbours)}`).join('\n'));
    else if (extra < 0.62) body.push(Array.from({ length: w.int(2, 4) }, () => `- [${random() < 0.5 ? 'x' : ' '}] ${w.sentence([])}`).join('\n'));
    else if (extra < 0.7) body.push(`> ${w.paragraph([])}`);
    else if (extra < 0.76) {
      const [file, alt] = w.pick(IMAGES);
      body.push(`![${alt}](/images/${file})`);
    }
    if (random() < 0.4) body.push(`### ${titleCase(w.words(w.int(2, 4)))}`, w.paragraph(neighbours));
    body.push(w.paragraph(neighbours));
  }

  const frontmatter = [
    '---',
    `title: ${JSON.stringify(title)}`,
    `description: ${JSON.stringify(description)}`,
    `date: ${date}`,
    ...(updated ? [`updated: ${updated}`] : []),
    `tags: [${tags.join(', ')}]`,
    '---',
  ];
  return { slug, source: `${frontmatter.join('\n')}\n\n${body.join('\n\n')}\n` };
}

export function generate(outDir, count, seed = 1, vocabulary = undefined) {
  const random = prng(seed);
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(path.join(outDir, 'posts'), { recursive: true });
  // Slugs are known only once made: make all, then point the placeholder links at real posts.
  const posts = Array.from({ length: count }, (_, index) => makePost(index, count, random, vocabulary));
  let bytes = 0;
  for (const post of posts) {
    const source = post.source.replace(/\/blog\/post-(\d+)\)/g, (_, n) => `/blog/${posts[Number(n)].slug})`);
    fs.writeFileSync(path.join(outDir, 'posts', `${post.slug}.md`), source);
    bytes += Buffer.byteLength(source);
  }
  const content = path.join(REPO, 'content');
  for (const file of ['site.yaml', 'home.md']) fs.copyFileSync(path.join(content, file), path.join(outDir, file));
  // The products' files (deliverables/) are checked at build beside the products that name them.
  for (const folder of ['apps', 'products', 'deliverables'].filter((name) => fs.existsSync(path.join(content, name))))
    fs.cpSync(path.join(content, folder), path.join(outDir, folder), { recursive: true });
  return { count, bytes, averageBytes: Math.round(bytes / count) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [outDir, countArg] = process.argv.slice(2);
  const seed = Number(process.argv.find((arg) => arg.startsWith('--seed='))?.slice(7) ?? 1);
  const count = Number(countArg);
  if (!outDir || !Number.isInteger(count) || count < 1) {
    console.error('usage: node bench/generate-posts.mjs <out dir> <count> [--seed=1]');
    process.exit(2);
  }
  const result = generate(path.resolve(outDir), count, seed);
  console.log(`wrote ${result.count} posts (${result.averageBytes} bytes on average) to ${outDir}`);
}
