import type { Logger } from '@app/logging';
import { BUCKETS, Kvm, busStatus, connectNats, ensureTopology, jetstream, type NatsConnection } from '@app/messaging';
import { startHealthServer, type App, type HealthServer } from '@app/runtime';
import type { WebhookConfig } from './config.js';
import type { Clock, SigningKeys, WebhookSender } from './application/ports.js';
import { deliverSigned, deliverWebhook } from './application/deliver-webhook.js';
import { receiverLimiter } from './application/receiver-limiter.js';
import { grpcSigningKeys } from './adapters/grpc-signing-keys.js';
import { RECORD_RETRY_MS, kvDeliveryStates } from './adapters/kv-delivery-states.js';
import { pinnedWebhookSender } from './adapters/pinned-webhook-sender.js';
import { smtpEmailSender } from './adapters/smtp-email-sender.js';
import { deliveriesConsumer } from './entrypoints/deliveries.consumer.js';
import { taskChangesConsumer } from './entrypoints/task-changes.consumer.js';
import { webhookMetrics } from './webhook-metrics.js';

/** The longest wait between two attempts, whatever a Retry-After asks for. */
const MAX_RETRY_DELAY_MS = 6 * 3_600_000;
/** A receiver at its concurrency cap here gets the message back after about this long. */
const BUSY_DELAY_MS = 1_000;

export interface WebhookDeps {
  nats: NatsConnection;
  keys: SigningKeys & { close?(): void; ready?(): Promise<void> };
  sender: WebhookSender;
  /** Sends notify emails (default: SMTP_URL's server, when set). */
  email: WebhookSender;
  clock: Clock;
}

/**
 * Composition root of the webhook dispatcher: delivers finished renders that have a webhook_url (async
 * API renders and task runs), signed, at least once, with the retry timing kept in JetStream.
 */
export async function createApp(config: WebhookConfig, logger: Logger, o: Partial<WebhookDeps> = {}): Promise<App> {
  const nats = o.nats ?? (await connectNats({ servers: config.natsUrl, name: 'webhook-dispatcher' }));
  if (!o.nats) await ensureTopology(nats, { replicas: config.natsReplicas });
  const js = jetstream(nats);
  const keys = o.keys ?? grpcSigningKeys(config.authQuotaAddress);
  const sender =
    o.sender ??
    pinnedWebhookSender({ allowPrivate: config.allowPrivateTargets, timeoutMs: config.timeoutMs, maxResponseBytes: config.maxResponseBytes });
  const states = kvDeliveryStates(await new Kvm(nats).open(BUCKETS.renderStatus.name));
  const deliveryDeps = {
    keys,
    sender,
    states,
    limiter: receiverLimiter(config.perReceiverConcurrency),
    clock: o.clock ?? { now: () => new Date() },
    policy: { scheduleMs: config.retryScheduleMs, jitter: config.retryJitter, maxDelayMs: MAX_RETRY_DELAY_MS },
    busyDelayMs: BUSY_DELAY_MS,
    // A send's timeout, then its outcome's record retried through a leader election, with room to spare.
    claimMs: config.timeoutMs + RECORD_RETRY_MS + 10_000,
    filesBaseUrl: config.filesBaseUrl,
    log: logger,
    onAttempt: webhookMetrics().attempt,
  };
  const deliver = deliverWebhook(deliveryDeps);
  const consumers = (['async', 'task'] as const).map((origin) => deliveriesConsumer({ js, origin, deliver, concurrency: config.concurrency, logger }));
  const email = o.email ?? (config.smtp ? smtpEmailSender({ ...config.smtp, timeoutMs: config.timeoutMs }) : undefined);
  const changes = taskChangesConsumer({ js, deliver: deliverSigned(deliveryDeps), senders: { chat: sender, email }, concurrency: config.concurrency, logger });
  let health: HealthServer | undefined;
  return {
    async start() {
      for (const consumer of consumers) consumer.start();
      changes.start();
      health = await startHealthServer({
        port: config.healthPort,
        host: config.healthHost,
        ready: { nats: busStatus(nats).check, ...(keys.ready ? { 'auth-quota': keys.ready } : {}) },
      });
      logger.info({ healthPort: health.port, retryScheduleMs: config.retryScheduleMs }, 'webhook-dispatcher delivering');
    },
    async stop() {
      health?.setDraining();
      await Promise.all([...consumers.map((c) => c.stop()), changes.stop()]);
      keys.close?.();
      (email as { close?(): void } | undefined)?.close?.();
      if (!o.nats) await nats.drain();
      await health?.close();
    },
  };
}
