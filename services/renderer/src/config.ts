import { hostname } from 'node:os';
import { envBool, envInt, envOptional, envPort, envString, loadConfig, z } from '@app/config';

const schema = z.object({
  NATS_URL: envString('nats://127.0.0.1:4222'),
  RENDERER_ID: envString(`${hostname()}-${process.pid}`),
  RENDERER_HEALTH_PORT: envPort(9102),
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
  ALLOW_PRIVATE_TARGETS: envBool(false),
});

export function parseConfig(env: NodeJS.ProcessEnv = process.env) {
  const c = loadConfig(schema, env);
  return {
    natsUrl: c.NATS_URL,
    rendererId: c.RENDERER_ID,
    healthPort: c.RENDERER_HEALTH_PORT,
    pool: {
      browsers: c.RENDERER_BROWSERS,
      concurrency: c.RENDERER_CONCURRENCY,
      maxQueue: c.RENDERER_MAX_QUEUE,
      restartAfter: c.RENDERER_RESTART_AFTER,
      warmContexts: c.RENDERER_WARM_CONTEXTS,
      executablePath: c.CHROME_PATH,
    },
    allowPrivateTargets: c.ALLOW_PRIVATE_TARGETS,
  };
}

export type RendererConfig = ReturnType<typeof parseConfig>;
