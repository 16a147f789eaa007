import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mongoEventStore, sqliteEventStore, type EventStore } from '@app/event-store';
import type { Logger } from '@app/logging';
import { BUCKETS, Kvm, busStatus, connectNats, ensureTopology, jetstream, type NatsConnection } from '@app/messaging';
import { AuthQuotaServiceService } from '@app/proto/authquota';
import { startGrpcServer, type GrpcServer } from '@app/rpc';
import { startHealthServer, type App, type HealthServer } from '@app/runtime';
import type { AuthQuotaConfig } from './config.js';
import { accountAdmin } from './application/account-admin.js';
import { admission } from './application/admission.js';
import type { Clock } from './application/ports.js';
import { aesGcmSecretBox } from './adapters/key-material.js';
import { resolveMasterKey } from './adapters/master-key.js';
import { followedAccountDirectory } from './adapters/followed-account-directory.js';
import { eventSourcedAccountCommands } from './adapters/event-sourced-accounts.js';
import { eventStoreUsageJournal } from './adapters/usage-journal.js';
import { LIMITS_REQUEST_TIMEOUT_MS, kvLimitsStore } from './adapters/kv-limits-store.js';
import { followAccountChanges, natsAccountChangeNotifier } from './adapters/nats-account-change-notifier.js';
import { authQuotaService } from './entrypoints/grpc/auth-quota.service.js';
import { renderOutcomesConsumer } from './entrypoints/render-outcomes.consumer.js';

/** A replica reads account changes it was not told about (a lost announcement) within this. */
const DIRECTORY_REFRESH_MS = 1_000;
import { authQuotaMetrics } from './auth-quota-metrics.js';
import { AccountConsoleServiceService } from '@app/proto/authquota/console';
import { accountConsole } from './application/account-console.js';
import { eventStoreDailyUsage } from './adapters/daily-usage.js';
import { accountConsoleService } from './entrypoints/grpc/account-console.service.js';
import { AccountSecretsServiceService } from '@app/proto/authquota/secrets';
import { accountSecrets } from './application/secrets/account-secrets.js';
import { accountSecretsService } from './entrypoints/grpc/account-secrets.service.js';
import { taskSessions } from './application/sessions/task-sessions.js';

export interface AuthQuotaDeps {
  clock: Clock;
  store: EventStore;
  nats: NatsConnection;
}

export interface AuthQuotaApp extends App {
  grpcPort(): number;
  /** Settlements of reservations nobody knew, since start (also in /healthz and the metrics). */
  unknownSettlements(): number;
}

/** Composition root of auth-quota. */
export async function createApp(config: AuthQuotaConfig, logger: Logger, overrides: Partial<AuthQuotaDeps> = {}): Promise<AuthQuotaApp> {
  const clock = overrides.clock ?? { now: () => new Date() };
  mkdirSync(config.dataDir, { recursive: true });
  const store =
    overrides.store ??
    (config.mongo ? await mongoEventStore(config.mongo) : sqliteEventStore({ path: config.eventsDb }));
  const secrets = aesGcmSecretBox(resolveMasterKey(config.masterKey, config.dataDir));
  const nats = overrides.nats ?? (await connectNats({ servers: config.natsUrl, name: 'auth-quota' }));
  await ensureTopology(nats, { replicas: config.natsReplicas });
  const js = jetstream(nats);
  const limits = kvLimitsStore(await new Kvm(jetstream(nats, { timeout: LIMITS_REQUEST_TIMEOUT_MS })).open(BUCKETS.quotaLimits.name));
  const directory = followedAccountDirectory(store);
  const journal = eventStoreUsageJournal(store);
  const notifier = natsAccountChangeNotifier(nats);
  const admin = accountAdmin({ commands: eventSourcedAccountCommands(store), directory, secrets, clock, notifier });
  const admit = admission({
    directory,
    secrets,
    clock,
    limits: config.planLimits,
    store: limits,
    journal,
    holdMs: config.reservationTtlMs,
    newId: () => randomUUID(),
    onJournalError: (err) => logger.error({ err }, 'recording quota usage failed'),
  });
  const settlements = renderOutcomesConsumer({ js, admission: admit, logger });
  const logRefreshError = (err: unknown) => logger.error({ err }, 'reading account changes failed');
  // Account secrets (passwords browser steps type): sealed under the master key, like the secret keys.
  const secretStore = accountSecrets({ store, box: secrets, clock });
  // Tasks' kept page sessions (keep_session), sealed the same way, per account and task.
  const sessionStore = taskSessions({ store, box: secrets, clock });
  const consoleUseCases = accountConsole({ directory, admission: admit, admin, limits: config.planLimits, dailyUsage: eventStoreDailyUsage(store), clock });

  let grpc: GrpcServer | undefined;
  let health: HealthServer | undefined;
  let follower: { unsubscribe(): void } | undefined;
  let refresher: NodeJS.Timeout | undefined;

  return {
    async start() {
      await directory.refresh();
      await admit.restoreUsage(await journal.load());
      follower = followAccountChanges(nats, directory, logRefreshError);
      refresher = setInterval(() => directory.refresh().catch(logRefreshError), DIRECTORY_REFRESH_MS);
      grpc = await startGrpcServer(config.grpcAddress, [
        { definition: AuthQuotaServiceService, implementation: authQuotaService({ admission: admit, admin, logger, onRefused: authQuotaMetrics().refused }) },
        { definition: AccountConsoleServiceService, implementation: accountConsoleService({ console: consoleUseCases, logger }) },
        { definition: AccountSecretsServiceService, implementation: accountSecretsService({ secrets: secretStore, sessions: sessionStore, logger }) },
      ]);
      settlements.start();
      health = await startHealthServer({
        port: config.healthPort,
        host: config.healthHost,
        ready: { nats: busStatus(nats).check },
        details: () => ({ grpcPort: grpc?.port, unknownSettlements: settlements.unknownSettlements() }),
      });
      logger.info({ grpcPort: grpc.port, healthPort: health.port }, 'auth-quota listening');
    },
    async stop() {
      health?.setDraining();
      clearInterval(refresher);
      follower?.unsubscribe();
      await grpc?.stop();
      await settlements.stop();
      await health?.close();
      if (!overrides.nats) await nats.drain();
      await store.close();
    },
    grpcPort: () => grpc?.port ?? 0,
    unknownSettlements: () => settlements.unknownSettlements(),
  };
}
