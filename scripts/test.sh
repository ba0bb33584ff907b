#!/usr/bin/env bash
# Every test lectern has: types, lint, unit tests, and contract tests against
# the built site served by lectern's own server on a loopback port. Installs
# the Debian tools the tests use when they are missing.
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
need xmllint libxml2-utils

npx next typegen >/dev/null
npx tsc --noEmit
npx eslint .
npx vitest run
