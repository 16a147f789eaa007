import { envAddress, envPort, envString, loadConfig, z } from '@app/config';

const schema = z.object({
  NATS_URL: envString('nats://127.0.0.1:4222'),
  SCHEDULER_GRPC_ADDR: envAddress('127.0.0.1:50052'),
  SCHEDULER_HEALTH_PORT: envPort(9103),
  DATA_DIR: envString('.data'),
});

export function parseConfig(env: NodeJS.ProcessEnv = process.env) {
  const c = loadConfig(schema, env);
  return { natsUrl: c.NATS_URL, grpcAddress: c.SCHEDULER_GRPC_ADDR, healthPort: c.SCHEDULER_HEALTH_PORT, dataDir: c.DATA_DIR };
}

export type SchedulerConfig = ReturnType<typeof parseConfig>;
