#!/usr/bin/env bash
# npm test: installs what is missing, builds, then runs the unit, integration and end-to-end tests
# (real NATS, real Chromium, the whole stack over HTTPS).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-system.sh
bash scripts/ensure-deps.sh
exec npx --no-install vitest run "$@"
