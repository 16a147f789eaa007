import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { mongoEventStore, sqliteEventStore, type EventStore, type OutboxRelay } from '@app/event-store';
import type { Logger } from '@app/logging';
import { BUCKETS, Objm, busStatus, connectNats, ensureTopology, jetstream, streamPublisher, wholeObjectReader, type NatsConnection } from '@app/messaging';
import { openRenderJobPublisher } from '@app/render-contracts';
import { SchedulerServiceService } from '@app/proto/scheduler';
import { TaskHistoryServiceService } from '@app/proto/scheduler/history';
import { startGrpcServer, type GrpcServer } from '@app/rpc';
import { startHealthServer, type App, type HealthServer } from '@app/runtime';
import type { SchedulerConfig } from './config.js';
import type { AuthQuota, Clock, Comparer, PairComparer, RenderJobs, TargetGuard } from './application/ports.js';
import { taskCommands } from './application/task-commands.js';
import { dueRunRequests, dueRuns, type TickResult } from './application/request-due-runs.js';
import { REPUBLISH_WINDOW_MS, runStarter } from './application/start-run.js';
import { runPreparation } from './application/prepare-runs.js';
import { preparedRunRecovery } from './application/recover-prepared-runs.js';
import { natsRunPrepareRequests } from './adapters/nats-run-prepare-requests.js';
import { aheadTrigger, dueTimeTrigger, runStartConsumer } from './entrypoints/nats/run-start.consumer.js';
import { dueInstantTimer } from './entrypoints/cron/due-instant.timer.js';
import { finishRun } from './application/finish-run.js';
import { compareRun } from './application/compare-run.js';
import { compareKeptRuns } from './application/compare-kept-runs.js';
import { objectStoreResults } from './adapters/object-store-results.js';
import { eventStoreTaskStreams } from './adapters/event-store-task-streams.js';
import { eventStoreTaskIds } from './adapters/event-store-task-ids.js';
import { grpcAuthQuota } from './adapters/grpc-auth-quota.js';
import { grpcTaskSessions } from './adapters/grpc-task-sessions.js';
import { natsRenderJobs } from './adapters/nats-render-jobs.js';
import { natsTaskEventPublisher } from './adapters/nats-task-event-publisher.js';
import { taskEventRelay } from './adapters/task-event-relay.js';
import { netGuardTarget } from './adapters/net-guard-target.js';
import { workerComparer } from './adapters/worker-comparer.js';
import { taskViews, type TaskViews } from './projections/task-views/task-views.js';
import { schedulerService } from './entrypoints/grpc/scheduler.service.js';
import { taskHistoryService } from './entrypoints/grpc/task-history.service.js';
import { taskRunsConsumer } from './entrypoints/nats/task-runs.consumer.js';
import { runComparisonsConsumer } from './entrypoints/nats/run-comparisons.consumer.js';
import { dueRunsTicker } from './entrypoints/cron/due-runs.ticker.js';
import { schedulerMetrics } from './scheduler-metrics.js';

export interface SchedulerDeps {
  clock: Clock;
  store: EventStore;
  nats: NatsConnection;
  authQuota: AuthQuota & { close?(): void; ready?(): Promise<void> };
  jobs: RenderJobs;
  guard: TargetGuard;
  /** Where monitoring runs are compared (default: worker threads with the configured deadline). */
  comparer: Comparer & { close?(): Promise<void> };
  /** Where two kept runs are compared (GET /v1/tasks/{id}/compare; default: the same worker threads). */
  pairComparer: PairComparer;
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
 * due-run ticker, outbox relay (SCHEDULER stream), run dispatchers, run-outcome consumer and comparison consumer.
 */
export async function createApp(config: SchedulerConfig, logger: Logger, o: Partial<SchedulerDeps> = {}): Promise<SchedulerApp> {
  const clock = o.clock ?? { now: () => new Date() };
  const store = o.store ?? (await openStore(config));
  // A minute's runs are many JetStream publishes (the jobs, run-started events): no stack per publish.
  const nats = o.nats ?? (await connectNats({ servers: config.natsUrl, name: 'scheduler' }));
  await ensureTopology(nats, { replicas: config.natsReplicas });
  const js = jetstream(nats);
  // A minute's jobs go out in one burst: their acknowledgements come back on one subscription.
  const jobStream = streamPublisher(nats);
  const authQuota = o.authQuota ?? grpcAuthQuota(config.authQuotaAddress);
  const guard = o.guard ?? netGuardTarget({ allowPrivate: config.allowPrivateTargets });

  const streams = eventStoreTaskStreams(store, { snapshotEvery: config.snapshotEvery });
  const jobs = o.jobs ?? natsRenderJobs(js, await openRenderJobPublisher(nats, jobStream));
  const resultsBucket = await new Objm(nats).open(BUCKETS.renderResults.name);
  const results = objectStoreResults(resultsBucket, wholeObjectReader(nats, resultsBucket, BUCKETS.renderResults.name), clock);
  const views = taskViews(store, { runHistoryLimit: config.runHistoryLimit });
  // Kept page sessions live at auth-quota (a test's stand-in auth-quota has none).
  const sessions = o.authQuota ? undefined : grpcTaskSessions(config.authQuotaAddress, logger);
  const commands = taskCommands({ streams, ids: eventStoreTaskIds(store), views, clock, guard, emailNotifications: config.emailNotifications, sessions });
  const relay = taskEventRelay(store, natsTaskEventPublisher(js), {
    intervalMs: config.outboxIntervalMs,
    onError: (err) => logger.error({ err }, 'relaying task events failed; retrying'),
  });
  const newId = o.newId ?? randomUUID;
  const newFileName = o.newFileName ?? (() => randomBytes(32).toString('base64url'));
  const flushRelay = () => void relay.flush().catch(() => undefined);
  // One run-start pipeline, four triggers: the due time (a claimed run's event), ahead (a prepare request),
  // the owner's run now, and a monitor's confirming render of a suspected change.
  const onDispatched = o.onDispatched ?? schedulerMetrics().dispatched;
  const starter = runStarter({ streams, authQuota, jobs, guard, clock, newId, newFileName, onDispatched });
  const preparation = runPreparation({
    starter,
    streams,
    views,
    clock,
    concurrency: config.dispatchConcurrency,
    onDispatched,
    onReady: (dueAt) => timer.arm(dueAt),
    onError: (err, taskId) => logger.error({ err, taskId }, 'starting a prepared run failed'),
  });
  const due = dueRuns({
    preparation,
    // Runs prepared by a replica that died: started from their job as prepared, or cancelled to run late.
    recoverAbandoned: preparedRunRecovery({
      streams,
      views,
      jobs,
      starter,
      clock,
      policy: { graceMs: config.preparedRunGraceMs, republishWindowMs: REPUBLISH_WINDOW_MS },
      concurrency: config.dispatchConcurrency,
      onRecovered: (run) => logger.warn(run, 'recovered a prepared run its replica abandoned'),
      onError: (err, taskId) => logger.error({ err, taskId }, 'recovering an abandoned prepared run failed'),
    }),
    requestDue: dueRunRequests({
      views,
      streams,
      clock,
      prepareLeadMs: config.prepareLeadMs,
      onUpcoming: natsRunPrepareRequests(js),
      onError: (err, taskId) => logger.error({ err, taskId }, 'claiming a due run failed'),
    }),
    // Prepared runs started at their due instant: their events go out now.
    onStarted: flushRelay,
    arm: (dueAt) => timer.arm(dueAt),
  });
  const timer = dueInstantTimer({ fire: due.startDue, logger });
  const ticker = dueRunsTicker({ tick: due.tick, intervalMs: config.tickMs, logger, onStarted: flushRelay });
  const concurrency = config.dispatchConcurrency;
  const dispatcher = runStartConsumer({ js, trigger: dueTimeTrigger, start: starter.atDueTime, concurrency, logger });
  const preparer = runStartConsumer({ js, trigger: aheadTrigger, start: preparation.prepare, concurrency, logger });
  // Comparisons (text extraction, ignore_text, diffs) run in worker threads: never on this thread, which
  // serves every account's requests, starts due runs and keeps NATS messages alive.
  const pool = !o.comparer || !o.pairComparer ? workerComparer({ threads: config.compareThreads, deadlineMs: config.compareTimeoutMs }) : undefined;
  const comparer = o.comparer ?? pool!;
  const compareKept = compareKeptRuns({ views, results, comparer: o.pairComparer ?? pool!, clock });
  const compare = compareRun({
    streams,
    results,
    clock,
    comparer,
    confirm: starter.toConfirm,
    onCompared: schedulerMetrics().compared,
    onFailed: (err, at) => logger.warn({ err, ...at }, 'comparing a monitoring run failed'),
  });
  const finish = finishRun({ streams, clock });
  // Outcomes are recorded on one consumer and compared on another: a comparison never holds an outcome back.
  const outcomes = taskRunsConsumer({ js, finish, concurrency: config.concurrency, logger });
  const comparisons = runComparisonsConsumer({ js, finish, compare, concurrency: config.concurrency, logger });

  let grpc: GrpcServer | undefined;
  let health: HealthServer | undefined;

  return {
    views,
    relay,
    tick: due.tick,
    grpcPort: () => grpc?.port ?? 0,
    async start() {
      await views.catchUp();
      relay.start();
      dispatcher.start();
      if (config.prepareLeadMs > 0) preparer.start();
      outcomes.start();
      comparisons.start();
      if (config.tickMs > 0) ticker.start();
      grpc = await startGrpcServer(config.grpcAddress, [
        { definition: SchedulerServiceService, implementation: schedulerService({ commands, views, starter, logger }) },
        { definition: TaskHistoryServiceService, implementation: taskHistoryService({ compare: compareKept, logger }) },
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
      await Promise.all([dispatcher.stop(), preparer.stop(), outcomes.stop(), comparisons.stop()]);
      timer.stop();
      await pool?.close();
      // Runs prepared here and not started go back to the due-time path (of any replica).
      await preparation.cancelAll();
      await relay.stop();
      await relay.flush().catch(() => undefined);
      jobStream.close();
      authQuota.close?.();
      sessions?.close();
      if (!o.nats) await nats.drain();
      await health?.close();
      if (!o.store) await store.close();
    },
  };
}
