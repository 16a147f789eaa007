import type { Logger } from '@app/logging';
import { connectNats, ensureTopology } from '@app/messaging';
import { startGrpcServer, type GrpcServer } from '@app/rpc';
import { startHealthServer, type App, type HealthServer } from '@app/runtime';
import type { SchedulerConfig } from './config.js';

/**
 * Composition root of the scheduler. It owns scheduled tasks (SchedulerService in proto/scheduler);
 * the task aggregate, projections and the due-run ticker are wired here as they land.
 */
export async function createApp(config: SchedulerConfig, logger: Logger): Promise<App> {
  const nats = await connectNats({ servers: config.natsUrl, name: 'scheduler' });
  await ensureTopology(nats);
  let grpc: GrpcServer | undefined;
  let health: HealthServer | undefined;
  return {
    async start() {
      grpc = await startGrpcServer(config.grpcAddress, []);
      health = await startHealthServer({
        port: config.healthPort,
        check: () => {
          if (nats.isClosed()) throw new Error('NATS connection closed');
          return { grpcPort: grpc?.port };
        },
      });
      logger.info({ grpcPort: grpc.port, healthPort: health.port }, 'scheduler listening');
    },
    async stop() {
      health?.setDraining();
      await grpc?.stop();
      await nats.drain();
      await health?.close();
    },
  };
}
