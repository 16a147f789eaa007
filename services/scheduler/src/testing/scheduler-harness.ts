import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteEventStore, type StoredEvent } from '@app/event-store';
import { createLogger } from '@app/logging';
import { CreateTaskRequest, SchedulerServiceClient, UpdateTaskRequest, type Task, type TaskRun } from '@app/proto/scheduler';
import { callUnary, grpcClient } from '@app/rpc';
import { createApp, type SchedulerApp, type SchedulerDeps } from '../app.js';
import { parseConfig } from '../config.js';
import { startTestNats } from './nats.js';

/**
 * Scheduler replicas as separate apps (each its own SQLite connection, NATS connection and gRPC server)
 * on one data folder and one real nats-server; the timer is off, tests tick by hand with their clock.
 */
export async function startSchedulerHarness(env: NodeJS.ProcessEnv = {}) {
  const nats = await startTestNats();
  const dataDir = mkdtempSync(join(tmpdir(), 'scheduler-'));
  const config = parseConfig({
    DATA_DIR: dataDir,
    NATS_URL: nats.url,
    SCHEDULER_GRPC_ADDR: '127.0.0.1:0',
    SCHEDULER_HEALTH_PORT: '0',
    SCHEDULER_TICK_MS: '0',
    SCHEDULER_OUTBOX_INTERVAL_MS: '50',
    // Runs are claimed when due unless a test turns preparation on.
    SCHEDULER_PREPARE_LEAD_MS: '0',
    ALLOW_PRIVATE_TARGETS: '1',
    ...env,
  });
  const apps: SchedulerApp[] = [];
  const clients: SchedulerServiceClient[] = [];
  const logger = createLogger('scheduler-test', { level: process.env.TEST_LOG_LEVEL ?? 'silent' });

  return {
    nats,
    config,
    async replica(deps: Partial<SchedulerDeps>) {
      const app = await createApp(config, logger, deps);
      await app.start();
      apps.push(app);
      const client = grpcClient(SchedulerServiceClient, `127.0.0.1:${app.grpcPort()}`);
      clients.push(client);
      // Messages filled as a decoded one is (lists left out are empty), so tests name only what they set.
      return {
        app,
        create: async (req: Omit<CreateTaskRequest, 'account_id'> & { account_id?: string }): Promise<Task> =>
          (await callUnary(client, client.createTask, CreateTaskRequest.fromPartial({ account_id: 'acc_test', ...req }))).task!,
        update: async (req: Omit<UpdateTaskRequest, 'account_id'> & { account_id?: string }): Promise<Task> =>
          (await callUnary(client, client.updateTask, UpdateTaskRequest.fromPartial({ account_id: 'acc_test', ...req }))).task!,
        get: async (id: number, accountId = 'acc_test'): Promise<Task> =>
          (await callUnary(client, client.getTask, { account_id: accountId, id })).task!,
        list: async (accountId = 'acc_test'): Promise<Task[]> => (await callUnary(client, client.listTasks, { account_id: accountId })).tasks,
        remove: (id: number, accountId = 'acc_test') => callUnary(client, client.deleteTask, { account_id: accountId, id }),
        runs: async (id: number, accountId = 'acc_test'): Promise<TaskRun[]> =>
          (await callUnary(client, client.listTaskRuns, { account_id: accountId, id })).runs,
        changes: async (id: number, accountId = 'acc_test'): Promise<TaskRun[]> =>
          (await callUnary(client, client.listTaskChanges, { account_id: accountId, id })).runs,
      };
    },
    /** Every event of the store, read through a connection of its own. */
    async events(): Promise<StoredEvent[]> {
      const store = sqliteEventStore({ path: config.eventsDb });
      try {
        return await store.readAll();
      } finally {
        await store.close();
      }
    },
    async stop() {
      for (const c of clients) c.close();
      for (const app of apps.reverse()) await app.stop();
      await nats.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type SchedulerHarness = Awaited<ReturnType<typeof startSchedulerHarness>>;
export type Replica = Awaited<ReturnType<SchedulerHarness['replica']>>;
