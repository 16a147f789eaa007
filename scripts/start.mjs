// Runs the whole service locally: NATS (unless NATS_URL is set; NATS_CLUSTER_SIZE=3 starts a cluster of
// three on loopback), the five services as separate processes, HTTPS on PORT (default 8443), and a demo account on the Scale plan.
import { startStack } from '@app/stack';

const port = Number(process.env.PORT ?? 8443);

function clusterSize(value) {
  if (value === undefined || value === '') return 1;
  const size = Number(value);
  if (!Number.isInteger(size) || size < 1 || size > 5) {
    console.error(`NATS_CLUSTER_SIZE must be a whole number from 1 to 5 (got ${JSON.stringify(value)})`);
    process.exit(1);
  }
  return size;
}
const stack = await startStack({
  port,
  dataDir: process.env.DATA_DIR ?? '.data',
  natsUrl: process.env.NATS_URL || undefined,
  natsClusterSize: clusterSize(process.env.NATS_CLUSTER_SIZE),
  renderers: Number(process.env.RENDERERS ?? 1),
  authQuotaReplicas: Number(process.env.AUTH_QUOTA_REPLICAS ?? 1),
  demoKeys: { accessKey: process.env.DEMO_ACCESS_KEY, secretKey: process.env.DEMO_SECRET_KEY },
  logs: process.env.LOG_FILES ? { kind: 'files', dir: process.env.LOG_FILES } : { kind: 'console' },
}).catch((err) => {
  console.error(`Could not start the service: ${err.message}`);
  process.exit(1);
});

console.log(`
Rendering service is running at ${stack.baseUrl} (self-signed certificate: curl -k)
Demo account (Scale plan)
  access key: ${stack.demo.accessKey}
  secret key: ${stack.demo.secretKey}
Try:
  curl -k -X POST ${stack.baseUrl}/v1/screenshot -H 'X-Access-Key: ${stack.demo.accessKey}' \\
       -H 'content-type: application/json' -d '{"html":"<h1>Hello</h1>"}' -o hello.jpg
Every service is supervised: one that exits unexpectedly is restarted (see the [launcher] lines).
Health, readiness and Prometheus metrics of each service: ${Object.entries(stack.opsUrls)
  .map(([name, url]) => `\n  ${name.padEnd(20)} ${url}/metrics`)
  .join('')}${stack.natsServers.length > 1 ? `
NATS cluster (every stream and bucket in ${process.env.NATS_REPLICAS || Math.min(stack.natsServers.length, 3)} copies):${stack.natsServers
  .map((n) => `\n  ${n.name.padEnd(20)} ${n.url}  monitoring ${n.monitorUrl}/jsz`)
  .join('')}` : ''}
Press Ctrl-C to stop.
`);

let stopping = false;
const stop = async (signal) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping every service in order (edge first, NATS last)...`);
  try {
    await stack.stop();
    console.log('Stopped.');
    process.exit(0);
  } catch (err) {
    console.error(`Stopping failed: ${err?.stack ?? err}`);
    process.exit(1);
  }
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
// The launcher never goes away without saying why.
process.on('uncaughtException', (err) => {
  console.error(`[launcher] unexpected error: ${err?.stack ?? err}`);
  void stop('uncaught exception');
});
process.on('unhandledRejection', (err) => console.error(`[launcher] unhandled rejection: ${err?.stack ?? err}`));
process.on('exit', (code) => console.log(`[launcher] exiting with code ${code}`));
