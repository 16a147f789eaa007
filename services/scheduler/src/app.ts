import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { mongoEventStore, sqliteEventStore, type EventStore, type OutboxRelay } from '@app/event-store';
import type { Logger } from '@app/logging';
import { busStatus, connectNats, ensureTopology, jetstream, openRenderJobPublisher, streamPublisher, type NatsConnection } from '@app/messaging';
import { SchedulerServiceService } from '@app/proto/scheduler';
import { startGrpcServer, type GrpcServer } from '@app/rpc';
import { startHealthServer, type App, type HealthServer } from '@app/runtime';
import type { SchedulerConfig } from './config.js';
import type { AuthQuota, Clock, RenderJobs, TargetGuard } from './application/ports.js';
import { taskCommands } from './application/task-commands.js';
import { dueRunRequests, type TickResult } from './application/request-due-runs.js';
import { dispatchRun } from './application/dispatch-run.js';
import { runPreparation } from './application/prepare-runs.js';
import { natsRunPrepareRequests } from './adapters/nats-run-prepare-requests.js';
import { runPrepareConsumer } from './entrypoints/nats/run-prepare.consumer.js';
import { dueInstantTimer } from './entrypoints/cron/due-instant.timer.js';
import { finishRun } from './application/finish-run.js';
import { eventStoreTaskStreams } from './adapters/event-store-task-streams.js';
import { eventStoreTaskIds } from './adapters/event-store-task-ids.js';
import { grpcAuthQuota } from './adapters/grpc-auth-quota.js';
import { natsRenderJobs } from './adapters/nats-render-jobs.js';
import { natsTaskEventPublisher } from './adapters/nats-task-event-publisher.js';
import { taskEventRelay } from './adapters/task-event-relay.js';
import { netGuardTarget } from './adapters/net-guard-target.js';
import { taskViews, type TaskViews } from './projections/task-views/task-views.js';
import { schedulerService } from './entrypoints/grpc/scheduler.service.js';
import { runDispatchConsumer } from './entrypoints/nats/run-dispatch.consumer.js';
import { taskRunsConsumer } from './entrypoints/nats/task-runs.consumer.js';
import { dueRunsTicker } from './entrypoints/cron/due-runs.ticker.js';
import { schedulerMetrics } from './scheduler-metrics.js';

export interface SchedulerDeps {
  clock: Clock;
  store: EventStore;
  nats: NatsConnection;
  authQuota: AuthQuota & { close?(): void; ready?(): Promise<void> };
  jobs: RenderJobs;
  guard: TargetGuard;
  newId: () => string;
  newFileName: () => string;
  /** Told how late each run's job went out after its due instant (the dispatch-lag metric by default). */
  onDispatched: (lagMs: number) => void;
}

export interface SchedulerApp extends App {
  grpcPort(): number;
  views: TaskViews;
  /** One tick of the due-run search, as the timer runs it (tests drive it with a controlled clock). */
  tick(): Promise<TickResult>;
  /** Publishes the outbox now. */
  relay: OutboxRelay;
}

async function openStore(config: SchedulerConfig): Promise<EventStore> {
  if (config.mongo) return mongoEventStore(config.mongo);
  mkdirSync(dirname(config.eventsDb), { recursive: true });
  return sqliteEventStore({ path: config.eventsDb });
}

/**
 * Composition root of the scheduler: event store → task streams and projection → gRPC SchedulerService,
 * due-run ticker, outbox relay (SCHEDULER stream), run dispatchers and run-outcome consumer.
 */
export async function createApp(config: SchedulerConfig, logger: Logger, o: Partial<SchedulerDeps> = {}): Promise<SchedulerApp> {
  const clock = o.clock ?? { now: () => new Date() };
  const store = o.store ?? (await openStore(config));
  // A minute's runs are many JetStream publishes (the jobs, run-started events): no stack per publish.
  const nats = o.nats ?? (await connectNats({ servers: config.natsUrl, name: 'scheduler', asyncTraces: false }));
  await ensureTopology(nats, { replicas: config.natsReplicas });
  const js = jetstream(nats);
  // A minute's jobs go out in one burst: their acknowledgements come back on one subscription.
  const jobStream = streamPublisher(nats);
  const authQuota = o.authQuota ?? grpcAuthQuota(config.authQuotaAddress);
  const jobs = o.jobs ?? natsRenderJobs(js, await openRenderJobPublisher(nats, jobStream));
  const guard = o.guard ?? netGuardTarget({ allowPrivate: config.allowPrivateTargets });

  const streams = eventStoreTaskStreams(store, { snapshotEvery: config.snapshotEvery });
  const views = taskViews(store, { runHistoryLimit: config.runHistoryLimit });
  const commands = taskCommands({ streams, ids: eventStoreTaskIds(store), views, clock, guard });
  const relay = taskEventRelay(store, natsTaskEventPublisher(js), {
    intervalMs: config.outboxIntervalMs,
    onError: (err) => logger.error({ err }, 'relaying task events failed; retrying'),
  });
  const newId = o.newId ?? randomUUID;
  const newFileName = o.newFileName ?? (() => randomBytes(32).toString('base64url'));
  // At the due instant (and on every tick), prepared runs start: their jobs go out, then the relay.
  const startDue = async () => {
    const started = await preparation.startDue();
    if (started > 0) void relay.flush().catch(() => undefined);
    if (preparation.readyCount() > 0) timer.arm(preparation.nextDueAt());
  };
  const timer = dueInstantTimer({ fire: startDue, logger });
  const runDeps = { streams, authQuota, jobs, guard, clock, newId, newFileName, onDispatched: o.onDispatched ?? schedulerMetrics().dispatched };
  const preparation = runPreparation({
    ...runDeps,
    views,
    concurrency: config.dispatchConcurrency,
    onReady: (dueAt) => timer.arm(dueAt),
    onError: (err, taskId) => logger.error({ err, taskId }, 'starting a prepared run failed'),
  });
  const announce = natsRunPrepareRequests(js);
  const dueTick = dueRunRequests({
    views,
    streams,
    clock,
    prepareLeadMs: config.prepareLeadMs,
    onUpcoming: announce,
    onError: (err, taskId) => logger.error({ err, taskId }, 'claiming a due run failed'),
  });
  const tick = async () => {
    await startDue();
    return dueTick();
  };
  const ticker = dueRunsTicker({
    tick,
    intervalMs: config.tickMs,
    logger,
    onStarted: () => void relay.flush().catch(() => undefined),
  });
  const dispatcher = runDispatchConsumer({
    js,
    dispatch: dispatchRun(runDeps),
    concurrency: config.dispatchConcurrency,
    logger,
  });
  const preparer = runPrepareConsumer({ js, preparation, concurrency: config.dispatchConcurrency, logger });
  const outcomes = taskRunsConsumer({ js, finish: finishRun({ streams, clock }), concurrency: config.concurrency, logger });

  let grpc: GrpcServer | undefined;
  let health: HealthServer | undefined;

  return {
    views,
    relay,
    tick,
    grpcPort: () => grpc?.port ?? 0,
    async start() {
      await views.catchUp();
      relay.start();
      dispatcher.start();
      if (config.prepareLeadMs > 0) preparer.start();
      outcomes.start();
      if (config.tickMs > 0) ticker.start();
      grpc = await startGrpcServer(config.grpcAddress, [
        { definition: SchedulerServiceService, implementation: schedulerService({ commands, views, logger }) },
      ]);
      health = await startHealthServer({
        port: config.healthPort,
        host: config.healthHost,
        ready: { nats: busStatus(nats).check, ...(authQuota.ready ? { 'auth-quota': authQuota.ready } : {}) },
        details: () => ({ grpcPort: grpc?.port, tasks: views.schedulable().length, position: views.position() }),
      });
      logger.info({ grpcPort: grpc.port, healthPort: health.port }, 'scheduler listening');
    },
    async stop() {
      health?.setDraining();
      await ticker.stop();
      await grpc?.stop();
      await Promise.all([dispatcher.stop(), preparer.stop(), outcomes.stop()]);
      timer.stop();
      // Runs prepared here and not started go back to the due-time path (of any replica).
      await preparation.cancelAll();
      await relay.stop();
      await relay.flush().catch(() => undefined);
      jobStream.close();
      authQuota.close?.();
      if (!o.nats) await nats.drain();
      await health?.close();
      if (!o.store) await store.close();
    },
  };
}
