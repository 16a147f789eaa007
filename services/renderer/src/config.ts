import { hostname } from 'node:os';
import { envAddresses, envBool, envInt, envOptional, envPort, envString, loadConfig, z } from '@app/config';

const schema = z.object({
  NATS_URL: envString('nats://127.0.0.1:4222'),
  /** Copies of every stream and bucket NATS keeps (1 on one server, 3 on a cluster). */
  NATS_REPLICAS: envInt(1, 1, 5),
  RENDERER_ID: envString(`${hostname()}-${process.pid}`),
  RENDERER_HEALTH_PORT: envPort(9102),
  /** Address of the operations port (/healthz, /readyz, /metrics); 0.0.0.0 for a scraper in another container. */
  HEALTH_HOST: envString('127.0.0.1'),
  /** Chromium processes kept warm. */
  RENDERER_BROWSERS: envInt(1, 1, 32),
  /** Renders at once in this process (across its browsers). */
  RENDERER_CONCURRENCY: envInt(4, 1, 64),
  RENDERER_MAX_QUEUE: envInt(8, 0, 1_000),
  /** Renders per browser before it is recycled (memory stays in check). */
  RENDERER_RESTART_AFTER: envInt(200, 0),
  /** Isolated contexts per browser prepared ahead of demand. */
  RENDERER_WARM_CONTEXTS: envInt(2, 0, 16),
  CHROME_PATH: envOptional(),
  /** ffmpeg, the encoder of screencasts (default: ffmpeg on the PATH). */
  FFMPEG_PATH: envOptional(),
  ALLOW_PRIVATE_TARGETS: envBool(false),
  /** auth-quota's replicas: the account secrets a `type` step names are fetched from it at render time. */
  AUTH_QUOTA_ADDR: envAddresses('127.0.0.1:50051'),
  /** Launch browsers with GPU flags (a host with a GPU); gpu_rendering says X-Service-Gpu: unavailable otherwise. */
  RENDERER_GPU: envBool(false),
  /** PEM file of certificates (an intranet CA, a self-signed site) the browsers trust besides their own store. */
  RENDERER_TRUSTED_CERTS: envOptional(),
  /** ip_location: JSON map of country code to proxy URL, e.g. {"us":"http://user:pass@us.proxy:8080"}. */
  IP_LOCATION_PROXIES: envString('{}').refine(isProxyMap, {
    message: 'must be a JSON object of country code to http(s) proxy URL',
  }),
});

function isProxyMap(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return (
      !!value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      Object.values(value).every((v) => typeof v === 'string' && URL.canParse(v) && /^https?:$/.test(new URL(v).protocol))
    );
  } catch {
    return false;
  }
}

export function parseConfig(env: NodeJS.ProcessEnv = process.env) {
  const c = loadConfig(schema, env);
  return {
    natsUrl: c.NATS_URL,
    natsReplicas: c.NATS_REPLICAS,
    rendererId: c.RENDERER_ID,
    healthPort: c.RENDERER_HEALTH_PORT,
    healthHost: c.HEALTH_HOST,
    pool: {
      browsers: c.RENDERER_BROWSERS,
      concurrency: c.RENDERER_CONCURRENCY,
      maxQueue: c.RENDERER_MAX_QUEUE,
      restartAfter: c.RENDERER_RESTART_AFTER,
      warmContexts: c.RENDERER_WARM_CONTEXTS,
      executablePath: c.CHROME_PATH,
      gpu: c.RENDERER_GPU,
    },
    ffmpegPath: c.FFMPEG_PATH,
    allowPrivateTargets: c.ALLOW_PRIVATE_TARGETS,
    authQuotaAddress: c.AUTH_QUOTA_ADDR,
    trustedCertsFile: c.RENDERER_TRUSTED_CERTS,
    ipLocationProxies: JSON.parse(c.IP_LOCATION_PROXIES) as Record<string, string>,
  };
}

export type RendererConfig = ReturnType<typeof parseConfig>;
