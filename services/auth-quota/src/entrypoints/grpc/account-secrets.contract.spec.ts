import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentials } from '@grpc/grpc-js';
import { AuthQuotaServiceClient } from '@app/proto/authquota';
import { AccountSecretsServiceClient } from '@app/proto/authquota/secrets';
import { callUnary } from '@app/rpc';
import { createLogger } from '@app/logging';
import { isAppError } from '@app/errors';
import { startNatsServer, type RunningNats } from '@app/stack';
import { createApp, type AuthQuotaApp } from '../../app.js';
import { parseConfig } from '../../config.js';

// Account secrets: the generated client against the real server on port 0, SQLite event store, read back
// from the store's own file.
let app: AuthQuotaApp;
let api: AuthQuotaServiceClient;
let secrets: AccountSecretsServiceClient;
let dataDir: string;
let nats: RunningNats;

const VALUE = 'hunter2-correct-horse-7f3c';

const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return isAppError(err) ? err.code : `not an AppError: ${String(err)}`;
  }
  return 'no error';
};
const open = async () => (await callUnary(api, api.createAccount, { name: 'Owner', plan: 'scale' })).account!.account_id;
const reveal = async (account_id: string, names: string[]) =>
  Object.fromEntries((await callUnary(secrets, secrets.revealSecrets, { account_id, names })).secrets.map((s) => [s.name, s.value]));

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'auth-quota-secrets-'));
  nats = await startNatsServer({ storeDir: join(dataDir, 'nats') });
  const config = parseConfig({ DATA_DIR: dataDir, NATS_URL: nats.url, AUTH_QUOTA_GRPC_ADDR: '127.0.0.1:0', AUTH_QUOTA_HEALTH_PORT: '0' });
  app = await createApp(config, createLogger('auth-quota-test', { level: 'silent' }));
  await app.start();
  api = new AuthQuotaServiceClient(`127.0.0.1:${app.grpcPort()}`, credentials.createInsecure());
  secrets = new AccountSecretsServiceClient(`127.0.0.1:${app.grpcPort()}`, credentials.createInsecure());
});

afterAll(async () => {
  api?.close();
  secrets?.close();
  await app?.stop();
  await nats?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('AccountSecretsService over gRPC', () => {
  describe('When a secret is put', () => {
    it('should list its name and dates only, and reveal its value to the account alone', async () => {
      const account = await open();
      const other = await open();
      const put = await callUnary(secrets, secrets.putSecret, { account_id: account, name: 'shop.password', value: VALUE });
      expect(put).toMatchObject({ created: true, secret: { name: 'shop.password' } });
      const listed = await callUnary(secrets, secrets.listSecrets, { account_id: account });
      expect(listed.secrets.map((s) => s.name)).toEqual(['shop.password']);
      expect(JSON.stringify(listed)).not.toContain(VALUE);
      expect(await reveal(account, ['shop.password', 'absent'])).toEqual({ 'shop.password': VALUE });
      expect(await reveal(other, ['shop.password'])).toEqual({});
    });

    it('should keep it sealed at rest: the event store file never holds the value', async () => {
      const account = await open();
      await callUnary(secrets, secrets.putSecret, { account_id: account, name: 'sealed', value: `${VALUE}-at-rest` });
      const files = readdirSync(dataDir).filter((f) => f.endsWith('.db') || f.endsWith('.db-wal'));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) expect(readFileSync(join(dataDir, file)).includes(`${VALUE}-at-rest`)).toBe(false);
      expect(await reveal(account, ['sealed'])).toEqual({ sealed: `${VALUE}-at-rest` });
    });

    it('should replace the value under the same name, keeping its creation date', async () => {
      const account = await open();
      const first = await callUnary(secrets, secrets.putSecret, { account_id: account, name: 'pin', value: '1234' });
      const second = await callUnary(secrets, secrets.putSecret, { account_id: account, name: 'pin', value: '5678' });
      expect(second.created).toBe(false);
      expect(second.secret!.created_unix_ms).toBe(first.secret!.created_unix_ms);
      expect(await reveal(account, ['pin'])).toEqual({ pin: '5678' });
    });
  });

  describe("When the account's keys are rotated", () => {
    it('should still reveal its secrets', async () => {
      const account = await open();
      await callUnary(secrets, secrets.putSecret, { account_id: account, name: 'kept', value: VALUE });
      await callUnary(api, api.rotateKeys, { account_id: account });
      expect(await reveal(account, ['kept'])).toEqual({ kept: VALUE });
    });
  });

  describe('When a secret is deleted', () => {
    it('should be gone from the list and from reveal; deleting it again is secret_not_found', async () => {
      const account = await open();
      await callUnary(secrets, secrets.putSecret, { account_id: account, name: 'gone', value: VALUE });
      await callUnary(secrets, secrets.deleteSecret, { account_id: account, name: 'gone' });
      expect((await callUnary(secrets, secrets.listSecrets, { account_id: account })).secrets).toEqual([]);
      expect(await reveal(account, ['gone'])).toEqual({});
      expect(await codeOf(callUnary(secrets, secrets.deleteSecret, { account_id: account, name: 'gone' }))).toBe('secret_not_found');
    });
  });

  describe('When a secret is malformed', () => {
    it('should answer invalid_parameter', async () => {
      const account = await open();
      expect(await codeOf(callUnary(secrets, secrets.putSecret, { account_id: account, name: 'has space', value: 'x' }))).toBe('invalid_parameter');
      expect(await codeOf(callUnary(secrets, secrets.putSecret, { account_id: account, name: 'ok', value: '' }))).toBe('invalid_parameter');
      expect(await codeOf(callUnary(secrets, secrets.putSecret, { account_id: account, name: 'ok', value: 'x'.repeat(4_097) }))).toBe('invalid_parameter');
    });
  });
});
