#!/usr/bin/env bash
# Installs npm dependencies when node_modules is missing or older than the lockfile, then builds
# every workspace (code generation first) through turbo.
set -euo pipefail
cd "$(dirname "$0")/.."

export TURBO_TELEMETRY_DISABLED=1
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] || [ package.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm dependencies..." >&2
  # `npm ci` refuses lockfiles written without other platforms' optional packages: install from the lockfile.
  npm install --no-audit --no-fund --loglevel=error >&2 || { echo "npm install failed" >&2; exit 1; }
fi
echo "Building..." >&2
npx --no-install turbo run build --output-logs=errors-only >&2 || { echo "Build failed" >&2; exit 1; }
