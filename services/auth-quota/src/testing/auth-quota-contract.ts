import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { credentials } from '@grpc/grpc-js';
import { AuthQuotaServiceClient } from '@app/proto/authquota';
import { callUnary } from '@app/rpc';
import { createLogger } from '@app/logging';
import { isAppError } from '@app/errors';
import { SUBJECTS, connectNats, jetstream, type NatsConnection, type RenderOrigin } from '@app/messaging';
import { RenderFinished } from '@app/proto/render';
import { startNatsServer, type RunningNats } from '@app/stack';
import { createApp, type AuthQuotaApp } from '../app.js';
import { parseConfig } from '../config.js';

// What the auth-quota contract files share: the generated gRPC client against the real server on port 0,
// with a real SQLite event store and a real NATS server (the limits live in its KV bucket; reservations
// settle from render outcomes on its stream), and the calls they make. `useAuthQuota()` starts it for a file.
export let app: AuthQuotaApp;
export let client: AuthQuotaServiceClient;
let dataDir: string;
let nats: RunningNats;
export let nc: NatsConnection;

export const configOf = (env: Record<string, string> = {}) =>
  parseConfig({
    DATA_DIR: dataDir,
    NATS_URL: nats.url,
    AUTH_QUOTA_GRPC_ADDR: '127.0.0.1:0',
    AUTH_QUOTA_HEALTH_PORT: '0',
    PLAN_FREE_QUOTA: '2',
    PLAN_GROWTH_RENDERS_IN_FLIGHT: '2',
    ...env,
  });
export const logger = createLogger('auth-quota-test', { level: 'silent' });

/** A render job's outcome, as its renderer announces it (an async render's by default: its job settles it). */
export const renderFinished = async (accountId: string, reservationId: string, status: 'succeeded' | 'failed', origin: RenderOrigin = 'async') => {
  const event = RenderFinished.fromPartial({
    job_id: `job-${reservationId}`,
    account_id: accountId,
    status,
    origin: 'api',
    reservation_id: reservationId,
    ...(status === 'succeeded' ? { result: { object_name: 'x', content_type: 'image/png', extension: 'png', size: 1, headers: {}, expires_unix_ms: 0 } } : {}),
  });
  await jetstream(nc).publish(SUBJECTS.renderEvent(origin, 'finished', event.job_id), RenderFinished.encode(event).finish());
};
export const usageOf = (accountId: string) => callUnary(client, client.getUsage, { account_id: accountId });

export const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return isAppError(err) ? err.code : `not an AppError: ${String(err)}`;
  }
  return 'no error';
};

export type AdmitExtra = Partial<{ usage: string; features: string[]; defer_quota: boolean; lease_units: number; signature: string; signed_query: string; settled_by: string }>;

export const admit = (accessKey: string, extra: AdmitExtra = {}) =>
  callUnary(client, client.admitRequest, {
    access_key: accessKey,
    usage: extra.usage ?? 'render',
    defer_quota: extra.defer_quota,
    features: extra.features ?? [],
    signature: extra.signature,
    signed_query: extra.signed_query ?? '',
    body: Buffer.alloc(0),
    lease_units: extra.lease_units,
    settled_by: extra.settled_by,
  });

/** A render an edge may answer from its cache, asking for a rate lease of `units`. */
export const cacheableRender: (units: number) => AdmitExtra = (units) => ({ defer_quota: true, lease_units: units });

export const returnLease = (account_id: string, lease_id: string, unused: number) =>
  callUnary(client, client.returnRateLease, { account_id, lease_id, unused });

export const errorOf = (p: Promise<unknown>) => p.then(() => undefined, (err: unknown) => err);

/**
 * The limits count per one-minute window of the real clock: a test that counts within one window waits
 * for the next when this one ends within `needMs`.
 */
export const inOneWindow = async (needMs = 10_000) => {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
};

/** The server, its bus and its store for the calling file: started before its tests, stopped after. */
export function useAuthQuota(): void {
  beforeAll(start);
  afterAll(stop);
}

async function start(): Promise<void> {
  dataDir = mkdtempSync(join(tmpdir(), 'auth-quota-'));
  nats = await startNatsServer({ storeDir: join(dataDir, 'nats') });
  nc = await connectNats({ servers: nats.url, name: 'auth-quota-test' });
  app = await createApp(configOf(), logger);
  await app.start();
  client = new AuthQuotaServiceClient(`127.0.0.1:${app.grpcPort()}`, credentials.createInsecure());
}

async function stop(): Promise<void> {
  client?.close();
  await app?.stop();
  await nc?.drain();
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/** Stops the server and starts another on the same store and bus (a restart). */
export async function restartAuthQuota(): Promise<void> {
  client.close();
  await app.stop();
  app = await createApp(configOf(), logger);
  await app.start();
  client = new AuthQuotaServiceClient(`127.0.0.1:${app.grpcPort()}`, credentials.createInsecure());
}
