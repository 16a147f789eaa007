#!/bin/sh
# Starts one service of the image: `run-service.sh [services/<name>/dist/main.js]` (default: $SERVICE).
# Its Node and V8 options come from `config.node_flags` in services/<name>/package.json, and variables its
# process reads as it starts (the C library's allocator's) from `config.env`: the one place they are stated
# (npm start and the local launcher read the same fields).
set -e
main=${1:-services/${SERVICE}/dist/main.js}
dir=${main%/dist/main.js}
flags=$(node -p "require('./${dir}/package.json').config?.node_flags ?? ''")
vars=$(node -p "require('./${dir}/package.json').config?.env ?? ''")
# shellcheck disable=SC2086 # the flags and variables are words
exec env $vars node $flags --import @app/telemetry/register "$main"
