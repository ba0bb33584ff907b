#!/usr/bin/env bash
# Every test lectern has: types, lint, unit tests, contract tests against the
# built site served by lectern's own server on loopback ports (also behind
# Debian's nginx, with deploy/nginx.conf, and Debian's Postfix and Dovecot for
# the newsletter's bounces), and browser tests (Playwright, axe, Lighthouse,
# link check) in Debian's Chromium. Installs the Debian tools the tests use
# when they are missing (without starting their system daemons: each test runs
# its own instance on loopback), starts a Redis server on a free loopback port
# for the tests, and stops it afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1

apt_updated=""
need() { # need <command> <debian package>
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "Installing $2 (for $1)..."
  if [ -z "$apt_updated" ]; then apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
}
# need_daemon <command> <debian package>: a package that ships a system service
# (Postfix, Dovecot, SpamAssassin's spamd). The tests start their own instances
# with their own configuration, so the system ones are neither configured nor
# started: Postfix is told "No configuration" and invoke-rc.d is refused (exit
# 101, Debian's policy-rc.d convention) for the time of the install.
need_daemon() {
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "debconf debconf/frontend select Noninteractive" | debconf-set-selections
  echo "postfix postfix/main_mailer_type select No configuration" | debconf-set-selections
  local policy=/usr/sbin/policy-rc.d placed=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && placed=1
  fi
  need "$1" "$2" || { [ -n "$placed" ] && rm -f "$policy"; return 1; }
  if [ -n "$placed" ]; then rm -f "$policy"; fi
}
need xmllint libxml2-utils
need redis-server redis-server
# Debian installs nginx in /usr/sbin, which is not on every user's PATH.
PATH="$PATH:/usr/sbin"
need nginx nginx
need chromium chromium
need_daemon postfix postfix
need_daemon dovecot dovecot-imapd
need_daemon spamassassin spamassassin

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
