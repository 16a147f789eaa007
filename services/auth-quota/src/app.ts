import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mongoEventStore, sqliteEventStore, type EventStore } from '@app/event-store';
import type { Logger } from '@app/logging';
import { connectNats, type NatsConnection } from '@app/messaging';
import { AuthQuotaServiceService } from '@app/proto/authquota';
import { startGrpcServer, type GrpcServer } from '@app/rpc';
import { startHealthServer, type App, type HealthServer } from '@app/runtime';
import type { AuthQuotaConfig } from './config.js';
import { accountAdmin } from './application/account-admin.js';
import { admission } from './application/admission.js';
import type { Clock } from './application/ports.js';
import { aesGcmSecretBox } from './adapters/key-material.js';
import { resolveMasterKey } from './adapters/master-key.js';
import { memoryAccountDirectory } from './adapters/memory-account-directory.js';
import { eventSourcedAccountCommands, loadAllAccountEvents } from './adapters/event-sourced-accounts.js';
import { eventStoreUsageJournal } from './adapters/usage-journal.js';
import { natsKeyChangeNotifier } from './adapters/nats-key-change-notifier.js';
import { rateWindows } from './domain/limits/rate-window.js';
import { quotaLedger } from './domain/limits/quota-ledger.js';
import { authQuotaService } from './entrypoints/grpc/auth-quota.service.js';

export interface AuthQuotaDeps {
  clock: Clock;
  store: EventStore;
}

export interface AuthQuotaApp extends App {
  grpcPort(): number;
}

/** Composition root of auth-quota. */
export async function createApp(config: AuthQuotaConfig, logger: Logger, overrides: Partial<AuthQuotaDeps> = {}): Promise<AuthQuotaApp> {
  const clock = overrides.clock ?? { now: () => new Date() };
  mkdirSync(config.dataDir, { recursive: true });
  const store =
    overrides.store ??
    (config.mongo ? await mongoEventStore(config.mongo) : sqliteEventStore({ path: config.eventsDb }));
  const secrets = aesGcmSecretBox(resolveMasterKey(config.masterKey, config.dataDir));
  const directory = memoryAccountDirectory();
  const journal = eventStoreUsageJournal(store);
  const quota = quotaLedger({ reservationTtlMs: config.reservationTtlMs });
  const nats: NatsConnection | undefined = config.natsUrl
    ? await connectNats({ servers: config.natsUrl, name: 'auth-quota' })
    : undefined;
  const notifier = nats ? natsKeyChangeNotifier(nats) : { keysChanged: async () => undefined };
  const admin = accountAdmin({ commands: eventSourcedAccountCommands(store), directory, secrets, clock, notifier });
  const admit = admission({
    directory,
    secrets,
    clock,
    limits: config.planLimits,
    rates: rateWindows(),
    quota,
    journal,
    newId: () => randomUUID(),
    onJournalError: (err) => logger.error({ err }, 'recording quota usage failed'),
  });

  let grpc: GrpcServer | undefined;
  let health: HealthServer | undefined;

  return {
    async start() {
      directory.apply(await loadAllAccountEvents(store));
      for (const u of await journal.load()) quota.restore(u.accountId, u.month, u.used);
      grpc = await startGrpcServer(config.grpcAddress, [
        { definition: AuthQuotaServiceService, implementation: authQuotaService({ admission: admit, admin, logger }) },
      ]);
      health = await startHealthServer({ port: config.healthPort, check: () => ({ grpcPort: grpc?.port }) });
      logger.info({ grpcPort: grpc.port, healthPort: health.port }, 'auth-quota listening');
    },
    async stop() {
      health?.setDraining();
      await grpc?.stop();
      await health?.close();
      await nats?.drain();
      await store.close();
    },
    grpcPort: () => grpc?.port ?? 0,
  };
}
