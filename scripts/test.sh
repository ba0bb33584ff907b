#!/usr/bin/env bash
# Every test lectern has: types, lint, unit tests, contract tests against the
# built site served by lectern's own server on loopback ports (also behind
# Debian's nginx, with deploy/nginx.conf, and Debian's Postfix and Dovecot for
# the newsletter's bounces), and browser tests (Playwright, axe, Lighthouse,
# link check) in Debian's Chromium. Checks that the Debian tools the tests use
# are present (scripts/install-test-tools.sh installs them; each test runs its
# own instance of a service on loopback), starts a Redis server on a free
# loopback port for the tests, and stops it afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1

# The Debian tools the tests use: scripts/install-test-tools.sh (npm's `pretest`) installs them;
# this script installs nothing and names what is missing.
PATH="$PATH:/usr/sbin" # Debian installs nginx and postfix in /usr/sbin, which is not on every user's PATH.
missing=""
for tool in xmllint redis-server nginx chromium postfix dovecot spamassassin; do
  command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
  echo "Missing for the tests:$missing. Run \`npm test\` (its pretest step installs them as root) or bash scripts/install-test-tools.sh." >&2
  exit 1
fi

redis_dir=$(mktemp -d)
redis_port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$redis_dir" --daemonize yes --pidfile "$redis_dir/redis.pid" >/dev/null
stop_redis() {
  redis-cli -p "$redis_port" shutdown nosave >/dev/null 2>&1 || true
  rm -rf "$redis_dir"
}
trap stop_redis EXIT
for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
export REDIS_TEST_URL="redis://127.0.0.1:$redis_port"

npx next typegen >/dev/null
npx tsc --noEmit
npm run --silent lint
npx vitest run "$@"
