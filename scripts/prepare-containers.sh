#!/usr/bin/env bash
# The compose end-to-end test's engine and image, made in the background while the other tests run:
#
#   prepare-containers.sh <state-dir>
#
# The slow part (podman and its images from Debian: ensure-containers.sh prepare, then the service image
# from infra/Dockerfile) runs at the lowest CPU and I/O priority, so the tests beside it keep the machine;
# then the engine's socket service starts at normal priority (ensure-containers.sh up). It ends by writing
# one of <state-dir>/ready (the variables for docker-compose.yml, one NAME=value a line), <state-dir>/skip
# (why containers cannot be had here) or <state-dir>/failed (what went wrong); timings go to stderr.
set -uo pipefail
cd "$(dirname "$0")/.."
state=${1:?state folder}
image=${RENDER_SERVICE_IMAGE:-localhost/render-service:test}
mkdir -p "$state"
low() { nice -n 19 ionice -c 3 "$@"; }
finish() { printf '%s\n' "$2" >"$state/$1.tmp" && mv "$state/$1.tmp" "$state/$1"; exit 0; }
started=$SECONDS

images=$(low bash scripts/ensure-containers.sh prepare 2>"$state/prepare.log")
case $? in
  0) ;;
  3) finish skip "$(sed -n 's/.*SKIP: //p' "$state/prepare.log" | tail -1)" ;;
  *) finish failed "ensure-containers.sh prepare failed: $(tail -3 "$state/prepare.log" | tr '\n' ' ')" ;;
esac
echo "prepare-containers: engine and base images ready in $((SECONDS - started)) s" >&2

node_image=$(sed -n 's/^NODE_IMAGE=//p' <<<"$images")
built=$SECONDS
if ! low podman build --format docker --network host --build-arg "NODE_IMAGE=$node_image" -t "$image" -f infra/Dockerfile . >"$state/build.log" 2>&1; then
  finish failed "building the service image failed: $(tail -30 "$state/build.log")"
fi
echo "prepare-containers: image $image built in $((SECONDS - built)) s" >&2

if ! env=$(bash scripts/ensure-containers.sh up "$state" 2>>"$state/prepare.log"); then
  finish failed "ensure-containers.sh up failed: $(tail -3 "$state/prepare.log" | tr '\n' ' ')"
fi
finish ready "$(printf '%s\nRENDER_SERVICE_IMAGE=%s\n' "$env" "$image" | grep -E '^[A-Z_]+=')"
