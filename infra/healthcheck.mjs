// The image's health check: GET /healthz (or the path given) on the operations port of the service this
// container runs (SERVICE), from inside the container. Exit 0 when it answers 2xx.
const PORT_VARIABLE = {
  'edge-http': ['EDGE_HEALTH_PORT', 9100],
  'auth-quota': ['AUTH_QUOTA_HEALTH_PORT', 9101],
  renderer: ['RENDERER_HEALTH_PORT', 9102],
  scheduler: ['SCHEDULER_HEALTH_PORT', 9103],
  'webhook-dispatcher': ['WEBHOOK_HEALTH_PORT', 9104],
};
const entry = PORT_VARIABLE[process.env.SERVICE ?? ''];
if (!entry) {
  console.error(`SERVICE must be one of ${Object.keys(PORT_VARIABLE).join(', ')}`);
  process.exit(2);
}
const port = process.env[entry[0]] || entry[1];
const path = process.argv[2] ?? '/healthz';
fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2500) }).then(
  (res) => process.exit(res.ok ? 0 : 1),
  () => process.exit(1),
);
