#!/usr/bin/env bash
# npm run bench: installs what is missing (wrk too), builds, then measures the service against the
# raw-browser baselines on this machine. Figures go to bench-results/latest.{json,md}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system.sh
if ! command -v wrk >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >&2 || { apt-get update -qq >&2 && apt-get install -y -qq wrk >&2; }
  else
    echo "The benchmark needs wrk: apt-get install wrk" >&2; exit 1
  fi
fi
bash scripts/ensure-deps.sh
# `--compare <git ref>`: the same bench beside another commit's (bench/src/compare.ts).
if [ "${1:-}" = "--compare" ]; then shift; exec node bench/dist/compare.js "$@"; fi
exec node bench/dist/run.js "$@"
