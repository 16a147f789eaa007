import { envBool, envPort, envString, loadConfig, z } from '@app/config';

const schema = z.object({
  NATS_URL: envString('nats://127.0.0.1:4222'),
  WEBHOOK_HEALTH_PORT: envPort(9104),
  ALLOW_PRIVATE_TARGETS: envBool(false),
});

export function parseConfig(env: NodeJS.ProcessEnv = process.env) {
  const c = loadConfig(schema, env);
  return { natsUrl: c.NATS_URL, healthPort: c.WEBHOOK_HEALTH_PORT, allowPrivateTargets: c.ALLOW_PRIVATE_TARGETS };
}

export type WebhookConfig = ReturnType<typeof parseConfig>;
