#!/usr/bin/env bash
# The container engine for the compose end-to-end test, provisioned the way ensure-system.sh provisions
# Chromium: rootful podman from Debian (with runc, docker-compose and debootstrap), installed when
# missing and running as root.
#
#   ensure-containers.sh up <state-dir>    install and configure what is missing, build the Debian base
#                                         and the stand-in images (skipped when they exist), start the
#                                         Docker-compatible socket service and the health-check ticker;
#                                         their PIDs go to <state-dir>/pids. Prints DOCKER_HOST=... last.
#   ensure-containers.sh down <state-dir>  stops the processes `up` started (by PID).
#   ensure-containers.sh prepare           only the slow part of `up` (packages, engine settings, images);
#                                         prints the image variables.
#
# Exit status 3 means "cannot be had here" (not root, no apt-get, no network, engine refuses to run):
# the message on stderr says why, and the tests that need containers skip.
set -euo pipefail
cd "$(dirname "$0")/.."

SOCKET_PATH=/run/podman/podman.sock
BASE_IMAGE=localhost/debian:bookworm
# Stand-ins for upstream images that cannot be pulled here, built from the Debian base. They are named
# as stand-ins; the compose file only uses them when the test points its image variables at them.
NODE_STANDIN=localhost/standin/node:20-bookworm-slim
NATS_STANDIN=localhost/standin/nats:debian-bookworm
PROMETHEUS_STANDIN=localhost/standin/prometheus:debian-bookworm
PACKAGES=(podman buildah runc conmon netavark aardvark-dns debootstrap docker-compose iptables uidmap catatonit)

say() { echo "ensure-containers: $*" >&2; }
cannot() { say "SKIP: $*"; exit 3; }

install_packages() {
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || cannot "missing ${missing[*]}; install them as root: apt-get install -y ${missing[*]}"
  command -v apt-get >/dev/null 2>&1 || cannot "missing ${missing[*]} and apt-get is not available"
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2; then
    apt-get update -qq >&2 || cannot "apt-get update failed: cannot install ${missing[*]}"
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2 || cannot "apt-get install failed for ${missing[*]}"
  fi
}

# podman 4.3 on this kind of machine: crun refuses the hybrid cgroup layout, rlimits cannot be raised
# above the hard limit, and there is no systemd (cgroupfs, events to a file).
configure_engine() {
  local conf=/etc/containers/containers.conf marker='# written by scripts/ensure-containers.sh'
  if [ -f "$conf" ] && ! grep -qF "$marker" "$conf"; then
    grep -q '^runtime *= *"runc"' "$conf" || say "warning: $conf exists and does not select runc; leaving it as it is"
    return 0
  fi
  local nofile
  nofile=$(ulimit -Hn)
  [ "$nofile" = unlimited ] && nofile=1048576
  mkdir -p /etc/containers
  cat >"$conf" <<EOF
$marker
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=32768:32768"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
}

debian_mirror() {
  local uri
  uri=$(grep -hoE '^(URIs:|deb) +https?://[^ ]+debian/?( |$)' /etc/apt/sources.list.d/* /etc/apt/sources.list 2>/dev/null \
    | grep -oE 'https?://[^ ]+' | grep -v security | head -1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

image_exists() { podman image exists "$1"; }

build_base() {
  image_exists "$BASE_IMAGE" && return 0
  say "building $BASE_IMAGE with debootstrap"
  local root
  root=$(mktemp -d)
  if ! debootstrap --variant=minbase bookworm "$root" "$(debian_mirror)" >/dev/null 2>&1; then
    rm -rf "$root"
    cannot "debootstrap of Debian bookworm failed (is the Debian mirror reachable?)"
  fi
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | podman import --change 'CMD ["/bin/bash"]' - "$BASE_IMAGE" >/dev/null 2>&1
  rm -rf "$root"
}

# A stand-in is built from a folder holding its Containerfile (and whatever it copies in).
build_standin() {
  local tag=$1 dir=$2
  image_exists "$tag" && return 0
  say "building stand-in $tag"
  podman build -q --network host -t "$tag" "$dir" >/dev/null || cannot "building $tag failed"
}

build_standins() {
  local work
  work=$(mktemp -d)
  # The host's trust roots, so tools in these images reach the npm registry and the Debian mirror
  # through whatever this machine trusts.
  local ca=/etc/ssl/certs/ca-certificates.crt

  # node:20-bookworm-slim stand-in: this machine's own Node 20 (it needs only libc and libstdc++) and npm,
  # with the user `node` (uid 1000) the upstream image has.
  mkdir -p "$work/node"
  cp "$(readlink -f "$(command -v node)")" "$work/node/node"
  cp -a "$(dirname "$(readlink -f "$(command -v node)")")/../lib/node_modules/npm" "$work/node/npm"
  cp "$ca" "$work/node/host-ca.pem"
  cat >"$work/node/Containerfile" <<EOF
# Stand-in for node:20-bookworm-slim (not pullable here): the Debian base with this machine's Node 20.
FROM $BASE_IMAGE
COPY host-ca.pem /etc/ssl/certs/host-ca.pem
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/host-ca.pem
CMD ["node"]
EOF
  build_standin "$NODE_STANDIN" "$work/node"

  # nats:2.10-alpine stand-in: Debian's nats-server (2.9.10), with wget for the health check.
  mkdir -p "$work/nats"
  cat >"$work/nats/Containerfile" <<EOF
# Stand-in for nats:2.10-alpine (not pullable here): Debian's nats-server 2.9.10.
FROM $BASE_IMAGE
RUN apt-get update && apt-get install -y --no-install-recommends nats-server wget && rm -rf /var/lib/apt/lists/*
ENTRYPOINT ["/usr/sbin/nats-server"]
EOF
  build_standin "$NATS_STANDIN" "$work/nats"

  # prom/prometheus stand-in: Debian's prometheus (2.42), started the way the upstream image starts it.
  mkdir -p "$work/prometheus"
  cat >"$work/prometheus/Containerfile" <<EOF
# Stand-in for prom/prometheus (not pullable here): Debian's prometheus 2.42.
FROM $BASE_IMAGE
RUN apt-get update && apt-get install -y --no-install-recommends prometheus && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /prometheus && chown nobody /prometheus
USER nobody
WORKDIR /prometheus
ENTRYPOINT ["/usr/bin/prometheus"]
CMD ["--config.file=/etc/prometheus/prometheus.yml"]
EOF
  build_standin "$PROMETHEUS_STANDIN" "$work/prometheus"
  rm -rf "$work"
}

socket_answers() { curl -sf --max-time 2 --unix-socket "$SOCKET_PATH" http://d/_ping >/dev/null 2>&1; }

# podman 4.3 runs health checks from systemd timers; without systemd this loop stands in for them.
health_ticker() {
  while sleep 2; do
    podman ps -q --filter health=starting --filter health=healthy --filter health=unhealthy 2>/dev/null \
      | sort -u | { while read -r id; do podman healthcheck run "$id" >/dev/null 2>&1 & done; wait; }
  done
}

# The slow part, safe to run ahead and at a low priority: packages, engine settings, the base and stand-in images.
prepare() {
  [ "$(uname -s)" = Linux ] || cannot "podman needs Linux"
  install_packages
  [ "$(id -u)" = 0 ] || cannot "the engine runs rootful: run the tests as root (or start the podman socket yourself)"
  configure_engine
  podman info >/dev/null 2>&1 || cannot "podman does not run here: $(podman info 2>&1 | tail -1)"
  build_base
  build_standins
}

images() {
  echo "NODE_IMAGE=$NODE_STANDIN"
  echo "NATS_IMAGE=$NATS_STANDIN"
  echo "PROMETHEUS_IMAGE=$PROMETHEUS_STANDIN"
}

up() {
  local state=$1
  mkdir -p "$state"
  prepare
  : >"$state/pids"
  if ! socket_answers; then
    mkdir -p "$(dirname "$SOCKET_PATH")"
    podman system service --time=0 "unix://$SOCKET_PATH" >"$state/podman-service.log" 2>&1 &
    echo $! >>"$state/pids"
    local i
    for i in $(seq 1 50); do socket_answers && break; sleep 0.2; done
    socket_answers || cannot "podman system service did not answer on $SOCKET_PATH"
  fi
  health_ticker >/dev/null 2>&1 &
  echo $! >>"$state/pids"
  echo "DOCKER_HOST=unix://$SOCKET_PATH"
  images
}

down() {
  local state=$1 pid
  [ -f "$state/pids" ] || return 0
  while read -r pid; do
    [ -n "$pid" ] || continue
    # The ticker's own children (a running `podman healthcheck`) go with it.
    pkill -TERM -P "$pid" 2>/dev/null || true
    kill -TERM "$pid" 2>/dev/null || true
  done <"$state/pids"
  rm -f "$state/pids"
}

case "${1:-}" in
  prepare) prepare && images ;;
  up) up "${2:?state folder}" ;;
  down) down "${2:?state folder}" ;;
  *) echo "usage: $0 up|down <state-dir>" >&2; exit 2 ;;
esac
