#!/usr/bin/env bash
# lectern's benchmarks: `npm run bench` runs every part and regenerates BENCHMARKS.md;
# `npm run bench -- reads` (or profile, weight, limits, store, flood, load, search, newsletter, build, render, build-profile,
# build-memory, publish, downloads, fediverse, report)
# runs one part.
# Load stays on loopback addresses, every run is bounded in time, and nothing here
# builds into the repository: the site is built in a copy of the working tree under
# ${BENCH_TMP:-/tmp/lectern-bench}; results go to bench/.work/results/*.json.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1

usage() {
  cat <<'EOF'
usage: npm run bench [-- PART... [OPTION...]]      (or: bash bench/run.sh PART... OPTION...)

parts (default: all of them, in this order)
  reads     req/s and p50/p99 at 50 connections for five read URLs: lectern, a bare
            node:http server and nginx serving the same bytes (plus two diagnostic servers)
  profile   CPU profile of lectern's server under load on a cached read (needs reads first)
  weight    bytes of the home page and a post: HTML, JS, CSS, fonts, images
  limits    latency and throughput of rate-limit decisions, in memory and on a local Redis
  store     store writes through the store API (SQLite): subscribe, and the outbox's claim and
            mark-sent, ops/s and p50/p99 per operation, in rounds (--store-rounds, default 5)
  flood     lectern's memory before and after 3,000 spellings of one post URL and 2,000
            query strings, and whether a page is still answered from memory; then made-up
            values under every dynamic segment: files written and memory kept
  search    the search index of 10,000 and 50,000 generated posts (two corpora, lectern's engine
            and MiniSearch): build time, heap, p50/p99 of one search (query and passages) over
            a few hundred varied queries and the worst queries; then 10,000 posts built and
            served: a cached read's p99 idle and under 4 clients looping the worst search
  build     next build time and peak memory for 100, 1,000 and 10,000 generated posts, and Hugo
  render    lectern's markdown pipeline alone, per post (lib/content/render.ts)
  build-profile
            where a 1,000-post next build spends its CPU (V8's profiler in every process)
  build-memory
            where a 10,000-post next build's memory goes, on the whole machine and in
            4 and 3 GiB memory cgroups (as containers of those sizes run it; needs root)
  newsletter
            one send to 10,000 subscribers through a local SMTP server: time, server memory,
            store bytes per recipient, cached-read p99 during the send; a kill -9 half-way
  load      a cached read's p50/p99 idle and while 64 MCP clients on their own loopback addresses,
            then 300 connections on the worst accepted search, loop for 20 s each
  downloads 20 concurrent downloads of a generated 200 MB file through a signed link: lectern's
            memory growth and throughput beside nginx serving the file from disk; the link
            check's p50/p99 in-process (signature and store read)
  publish   delay from a scheduled post's time to its being on every output (p50, max over
            --scheduled posts) and the CPU each publish costs lectern's server, at --publish-sizes
            posts (default 1000,10000); cached reads timed before and between
  fediverse one post going live, delivered to 10,000 followers spread over 1,000 inboxes (receiving
            servers on loopback): time until every inbox has it, duplicates, server memory growth,
            cached-read p99 idle and during the delivery (--followers, --inboxes, --lead, --timeout)
  report    regenerate BENCHMARKS.md from bench/.work/results (always run last)

options (passed to every part)
  --duration=S          seconds of load per read run (default 10)
  --warmup=S            seconds of warm-up before each read run (default 2)
  --rounds=N            interleaved rounds of read runs; medians are kept (default 3)
  --tool=wrk|autocannon load generator for reads (default wrk when installed)
  --diagnose=false      skip the two diagnostic servers of the reads
  --before=REF          reads, search (over HTTP), build, newsletter, store: also measure the project
                        at that commit (git archive, its own node_modules installed for its lockfile
                        with install scripts) on its own runtime (its `node` package, or else the
                        machine's Node: the first node on PATH outside node_modules/.bin), in the
                        same run, interleaved with the working tree; BENCHMARKS.md gets a before and
                        after table
  --build-rounds=N      build with --before: builds per side at each size, alternating (default 2)
  --newsletter-rounds=N newsletter with --before: sends per side, alternating (default 3)
  --kill=false          newsletter: skip the send killed half-way
  --warm=false          build: cold builds only (no warm rebuild, no long tail)
  --search-rounds=N     search with --before: rounds per side over HTTP (default 3)
  --sizes=100,1000      post counts for the build part (default 100,1000,10000)
  --timeout-minutes=M   limit for each next build (default 45)
  --size-mib=N, --concurrency=N, --checks=N
                        downloads: file size (default 200), clients at once (default 20), link checks (default 20000)
  --posts=N             posts for render (default 300), build-profile (default 1000),
                        build-memory (default 10000); for search a list (default 10000,50000)
  --http=false          search: skip the part over HTTP (its 10,000-post build)
  --parts=engines,fold,http
                        search: run only these parts; the others keep their last results
  --queries=N           queries for search (default 400, each run 5 times)
  --memory-limits=MiB,… memory cgroup sizes for build-memory (default 4096,3072)
  --spellings=N, --queries=N, --made-up=N
                        URLs the flood part sends (default 3000, 2000 and 6000 a round)
  --quick               a short smoke run: 3 s reads, 1 round, sizes 100 and 1000

environment
  BENCH_TMP=dir         where the site copy, builds and generated posts go (default /tmp/lectern-bench)
  BENCH_PIN=0           do not pin servers to CPU 0 and load generators to CPU 1
  BENCH_REUSE_SITE=1    measure the copy of the working tree made by the previous run
  BENCH_NICE=-10        run the measuring processes (and the servers and load they start) at this
                        niceness, so other work on a shared machine disturbs them less (root only)
EOF
}

parts=()
options=()
for arg in "$@"; do
  case "$arg" in
    -h | --help) usage; exit 0 ;;
    --quick) options+=(--duration=3 --warmup=1 --rounds=1 --sizes=100,1000 --hugo-runs=1 --memory-decisions=20000 --redis-decisions=5000 --posts=100) ;;
    --*) options+=("$arg") ;;
    reads | profile | weight | limits | store | flood | load | search | build | render | build-profile | build-memory | newsletter | publish | downloads | fediverse | report) parts+=("$arg") ;;
    all) parts+=(reads profile weight limits store flood load search newsletter build render build-profile build-memory publish downloads fediverse) ;;
    *) echo "unknown part or option: $arg" >&2; usage >&2; exit 2 ;;
  esac
done
[ ${#parts[@]} -eq 0 ] && parts=(reads profile weight limits store flood load search newsletter build render build-profile build-memory publish downloads fediverse)

apt_updated=""
need() { # need <command> <Debian package>
  command -v "$1" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing $2 (for $1)..."
    if [ -z "$apt_updated" ]; then apt-get update -qq; apt_updated=1; fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
  else
    echo "bench needs $1: install the Debian package $2" >&2
    exit 1
  fi
}
for part in "${parts[@]}"; do
  case "$part" in
    reads) need nginx nginx; need wrk wrk; need taskset util-linux ;;
    downloads) need nginx nginx; need taskset util-linux ;;
    limits) need redis-server redis-server ;;
    build) need hugo hugo; need /usr/bin/time time ;;
    build-memory) need /usr/bin/time time ;;
  esac
done

# Each part is bounded in time; a part that fails or runs out of time does not stop the others.
status=0
for part in "${parts[@]}"; do
  [ "$part" = report ] && continue
  echo "== bench: $part"
  case "$part" in
    reads) timeout 90m node bench/reads.mjs "${options[@]}" || status=$? ;;
    profile) timeout 20m node bench/profile-reads.mjs "${options[@]}" || status=$? ;;
    weight) timeout 20m node bench/weight.mjs "${options[@]}" || status=$? ;;
    limits) timeout 20m node --import tsx bench/limits.mjs "${options[@]}" || status=$? ;;
    store) timeout 30m node bench/store.mjs "${options[@]}" || status=$? ;;
    flood) timeout 20m node --import tsx bench/flood.mjs "${options[@]}" || status=$? ;;
    load) timeout 20m node bench/load.mjs "${options[@]}" || status=$? ;;
    search) timeout 60m node --expose-gc --import tsx bench/search.mjs "${options[@]}" || status=$? ;;
    # With --before, 2 × --newsletter-rounds sends of 10,000: minutes each on a busy machine.
    newsletter) timeout 2h node --import tsx bench/newsletter.mjs "${options[@]}" || status=$? ;;
    # Three sizes, each next build limited by --timeout-minutes (45 by default).
    build) timeout 4h node bench/build.mjs "${options[@]}" || status=$? ;;
    render) timeout 30m node bench/render.mjs "${options[@]}" || status=$? ;;
    build-profile) timeout 90m node bench/build-profile.mjs "${options[@]}" || status=$? ;;
    # One build per memory limit and one without, each limited by --timeout-minutes.
    build-memory) timeout 3h node bench/build-memory.mjs "${options[@]}" || status=$? ;;
    # One next build per size, then a few scheduled posts watched going live.
    publish) timeout 2h node bench/publish.mjs "${options[@]}" || status=$? ;;
    # 3 rounds of 20 × 200 MB from each server, then the link checks: minutes.
    downloads) timeout 20m node --import tsx bench/downloads.mjs "${options[@]}" || status=$? ;;
    # A build of content/ (when its source changed), then one delivery of at most --timeout seconds.
    fediverse) timeout 30m node --import tsx bench/fediverse.mjs "${options[@]}" || status=$? ;;
  esac
done
node bench/report.mjs
exit "$status"
