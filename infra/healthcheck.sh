#!/bin/bash
# The image's health check: GET /healthz (or the path given) on the operations port of the service this
# container runs (SERVICE). Plain bash (/dev/tcp), so a check costs no Node start-up. Exit 0 on a 2xx.
case "$SERVICE" in
  edge-http) port=${EDGE_HEALTH_PORT:-9100} ;;
  auth-quota) port=${AUTH_QUOTA_HEALTH_PORT:-9101} ;;
  renderer) port=${RENDERER_HEALTH_PORT:-9102} ;;
  scheduler) port=${SCHEDULER_HEALTH_PORT:-9103} ;;
  webhook-dispatcher) port=${WEBHOOK_HEALTH_PORT:-9104} ;;
  *) echo "SERVICE must be edge-http, auth-quota, renderer, scheduler or webhook-dispatcher" >&2; exit 2 ;;
esac
exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' "${1:-/healthz}" >&3
read -r -t 3 _ status _ <&3 || exit 1
[[ "$status" == 2?? ]]
