import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentials } from '@grpc/grpc-js';
import { AccountSecretsServiceClient } from '@app/proto/authquota/secrets';
import { callUnary } from '@app/rpc';
import { createLogger } from '@app/logging';
import { isAppError } from '@app/errors';
import { startNatsServer, type RunningNats } from '@app/stack';
import { createApp, type AuthQuotaApp } from '../../app.js';
import { parseConfig } from '../../config.js';

// Tasks' kept page sessions (keep_session): the generated client against the real server on port 0 and
// its SQLite event store, read back from the store's own file.
let app: AuthQuotaApp;
let client: AccountSecretsServiceClient;
let dataDir: string;
let nats: RunningNats;

const SESSION = JSON.stringify({ cookies: [{ name: 'session', value: 'c0ffee-session-id-9d2', domain: '127.0.0.1', path: '/' }] });

const read = async (account_id: string, task_id: string) => (await callUnary(client, client.readTaskSession, { account_id, task_id })).session;
const keep = (account_id: string, task_id: string, session: string) => callUnary(client, client.keepTaskSession, { account_id, task_id, session });
const forget = (account_id: string, task_id: string) => callUnary(client, client.forgetTaskSession, { account_id, task_id });
const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return isAppError(err) ? err.code : `not an AppError: ${String(err)}`;
  }
  return 'no error';
};
const eventFiles = () => readdirSync(dataDir).filter((f) => f.endsWith('.db') || f.endsWith('.db-wal'));

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'auth-quota-sessions-'));
  nats = await startNatsServer({ storeDir: join(dataDir, 'nats') });
  const config = parseConfig({ DATA_DIR: dataDir, NATS_URL: nats.url, AUTH_QUOTA_GRPC_ADDR: '127.0.0.1:0', AUTH_QUOTA_HEALTH_PORT: '0' });
  app = await createApp(config, createLogger('auth-quota-test', { level: 'silent' }));
  await app.start();
  client = new AccountSecretsServiceClient(`127.0.0.1:${app.grpcPort()}`, credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await app?.stop();
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('Task sessions over gRPC', () => {
  describe('Given a session kept for a task', () => {
    it('should read it back for that account and task only', async () => {
      await keep('acc-a', '7', SESSION);
      expect(await read('acc-a', '7')).toBe(SESSION);
      expect(await read('acc-a', '8')).toBeUndefined();
      expect(await read('acc-b', '7')).toBeUndefined();
    });

    it('should keep it sealed at rest: the event store never holds it', async () => {
      await keep('acc-a', '9', SESSION);
      expect(eventFiles().length).toBeGreaterThan(0);
      for (const file of eventFiles()) expect(readFileSync(join(dataDir, file)).includes('c0ffee-session-id-9d2')).toBe(false);
    });

    it('should replace it with the next one, and record nothing for an unchanged one', async () => {
      const next = JSON.stringify({ cookies: [{ name: 'session', value: 'next', domain: '127.0.0.1', path: '/' }] });
      await keep('acc-a', '10', SESSION);
      await keep('acc-a', '10', next);
      expect(await read('acc-a', '10')).toBe(next);
      const size = () => eventFiles().reduce((n, f) => n + readFileSync(join(dataDir, f)).length, 0);
      const before = size();
      for (let i = 0; i < 5; i++) await keep('acc-a', '10', next);
      expect(size()).toBe(before);
    });
  });

  describe('When the session is forgotten (its task deleted)', () => {
    it('should read none, and forgetting again is no error', async () => {
      await keep('acc-a', '11', SESSION);
      await forget('acc-a', '11');
      expect(await read('acc-a', '11')).toBeUndefined();
      expect(await codeOf(forget('acc-a', '11'))).toBe('no error');
    });
  });

  describe('When the request is malformed', () => {
    it('should answer invalid_parameter', async () => {
      expect(await codeOf(keep('acc-a', 'not-a-task', SESSION))).toBe('invalid_parameter');
      expect(await codeOf(keep('acc-a', '12', ''))).toBe('invalid_parameter');
      expect(await codeOf(read('', '12'))).toBe('invalid_parameter');
    });
  });
});
