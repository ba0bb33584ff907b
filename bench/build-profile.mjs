// Where `next build`'s time goes, measured: builds generated posts with V8's CPU profiler
// in every Node process of the build (the main process, the TypeScript check, each static
// generation worker; bench/lib/cpu-prof-preload.mjs) and sums the samples by what they
// were doing. Not timed: the profiler slows the build down; the shares are what counts.
//   node bench/build-profile.mjs [--posts=1000]
import fs from 'node:fs';
import path from 'node:path';
import { generate } from './generate-posts.mjs';
import { REPO, SITE, TMP, log, mkdirp, nextBuild, saveResult, snapshotSite } from './lib/common.mjs';

const POSTS = Number(
  process.argv.find((arg) => arg.startsWith('--posts='))?.slice(8) ?? process.argv.find((arg) => arg.startsWith('--profile-posts='))?.slice(16) ?? 1000,
);
const DIST = '.next-bench-profile';

/** What a sample was doing: the first frame, from the leaf up, that says so. */
function categoryOf(stack) {
  for (const frame of stack) {
    const url = frame.url || '';
    const name = frame.functionName;
    if (name === '(garbage collector)') return 'garbage collection';
    if (/\/(shiki|@shikijs)\//.test(url)) {
      return stack.some((f) =>
        /^(getSingletonHighlighter|loadLanguage|loadLanguages|resolveLangs|normalizeGetter|loadGrammarWithConfiguration|reloadLanguage|createHighlighter)$/.test(
          f.functionName,
        ),
      )
        ? 'shiki: loading grammars (getSingletonHighlighter, loadLanguage)'
        : 'shiki: highlighting code';
    }
    if (/@vercel\/og|satori|resvg|yoga/.test(url)) return 'Open Graph images (next/og: satori, resvg)';
    if (/react-dom|react-server-dom|app-page.*runtime|react\.production|react-jsx/.test(url)) return 'React rendering (Next app-page runtime)';
    if (/\.next-bench-profile\/server\/(chunks|app)/.test(url)) return "the site's server code and the packages bundled with it (markdown pipeline, pages)";
    if (/\/node_modules\/next\//.test(url)) return 'Next (build, static generation, runtime)';
    if (/\/node_modules\/typescript\//.test(url)) return 'TypeScript check';
    if (/\/node_modules\//.test(url)) return 'other packages';
    if (url.startsWith('node:')) return 'Node (files, modules, streams)';
  }
  const leaf = stack[0]?.functionName;
  if (leaf === '(program)') return 'V8 / native';
  return 'other';
}

function summarize(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const categories = new Map();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    const id = profile.samples[i];
    const micros = profile.timeDeltas[i] ?? 0;
    if (byId.get(id)?.callFrame.functionName === '(idle)') continue;
    const stack = [];
    for (let at = id; at !== undefined; at = parentOf.get(at)) stack.push(byId.get(at).callFrame);
    const category = categoryOf(stack);
    categories.set(category, (categories.get(category) ?? 0) + micros);
    total += micros;
  }
  return {
    busySeconds: total / 1e6,
    categories: [...categories.entries()].sort((a, b) => b[1] - a[1]).map(([name, micros]) => ({ name, seconds: micros / 1e6, share: micros / total })),
  };
}

async function main() {
  snapshotSite();
  const contentDir = path.join(TMP, `content-${POSTS}`);
  generate(contentDir, POSTS);
  const profiles = path.join(TMP, 'build-profiles');
  fs.rmSync(profiles, { recursive: true, force: true });
  mkdirp(profiles);
  log(`next build of ${POSTS} posts, every Node process profiled`);
  const result = await nextBuild({
    distDir: DIST,
    contentDir,
    preload: path.join(REPO, 'bench', 'lib', 'cpu-prof-preload.mjs'),
    env: { BENCH_CPU_PROF_DIR: profiles },
    timeoutMs: 60 * 60_000,
  });
  if (!result.ok)
    throw new Error(
      `profiled build failed:\n${result.lines
        .slice(-30)
        .map((entry) => entry.line)
        .join('\n')}`,
    );
  // Workers are ended as the build finishes and write their profiles as they go: wait until the files stop changing.
  const sizes = () => JSON.stringify(fs.readdirSync(profiles).map((file) => [file, fs.statSync(path.join(profiles, file)).size]));
  for (let i = 0, last = ''; i < 60; i += 1) {
    const now = sizes();
    if (now === last) break;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const files = fs.existsSync(profiles) ? fs.readdirSync(profiles, { recursive: true }).filter((file) => String(file).endsWith('.cpuprofile')) : [];
  const processes = [];
  for (const file of files.sort()) {
    if (fs.statSync(path.join(profiles, String(file))).size < 1000) continue;
    const summary = summarize(JSON.parse(fs.readFileSync(path.join(profiles, String(file)), 'utf8')));
    processes.push({ file: String(file), ...summary });
    if (summary.busySeconds < 1) continue;
    log(`${file}: ${summary.busySeconds.toFixed(1)} s busy`);
    for (const category of summary.categories.slice(0, 8))
      log(`   ${(category.share * 100).toFixed(1).padStart(5)} %  ${category.seconds.toFixed(1).padStart(7)} s  ${category.name}`);
  }
  saveResult('build-profile', { posts: POSTS, wallSeconds: result.wallSeconds, processes });
  fs.rmSync(path.join(SITE, DIST), { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
