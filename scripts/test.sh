#!/usr/bin/env bash
# Every test lectern has: types, lint, unit tests, and contract tests against
# the built site served by lectern's own server on a loopback port.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1

npx next typegen >/dev/null
npx tsc --noEmit
npx eslint .
npx vitest run
