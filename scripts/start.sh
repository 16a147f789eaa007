#!/usr/bin/env bash
# npm start: installs what is missing, builds, then runs NATS and the five services.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system.sh
bash scripts/ensure-deps.sh
exec node scripts/start.mjs
