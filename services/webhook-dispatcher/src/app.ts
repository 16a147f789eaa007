import type { Logger } from '@app/logging';
import { connectNats, ensureTopology } from '@app/messaging';
import { startHealthServer, type App, type HealthServer } from '@app/runtime';
import type { WebhookConfig } from './config.js';

/**
 * Composition root of the webhook dispatcher: delivers finished async renders to their webhook_url.
 * The delivery consumer is wired here as it lands.
 */
export async function createApp(config: WebhookConfig, logger: Logger): Promise<App> {
  const nats = await connectNats({ servers: config.natsUrl, name: 'webhook-dispatcher' });
  await ensureTopology(nats);
  let health: HealthServer | undefined;
  return {
    async start() {
      health = await startHealthServer({
        port: config.healthPort,
        check: () => {
          if (nats.isClosed()) throw new Error('NATS connection closed');
          return {};
        },
      });
      logger.info({ healthPort: health.port }, 'webhook-dispatcher ready');
    },
    async stop() {
      health?.setDraining();
      await nats.drain();
      await health?.close();
    },
  };
}
