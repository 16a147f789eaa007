import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { AuthQuotaServiceClient } from '@app/proto/authquota';
import { callUnary, grpcClient } from '@app/rpc';

export interface DemoKeys {
  accessKey: string;
  secretKey: string;
}

/**
 * The demo account on the Scale plan. Its keys come from DEMO_ACCESS_KEY / DEMO_SECRET_KEY when set,
 * else from the data folder (so they survive restarts), else they are generated once.
 */
export async function ensureDemoAccount(opts: { authQuotaAddress: string; dataDir: string; fixed?: Partial<DemoKeys> }): Promise<DemoKeys> {
  const file = join(opts.dataDir, 'demo-account.json');
  const saved: Partial<DemoKeys> = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoKeys) : {};
  const keys: DemoKeys = {
    accessKey: opts.fixed?.accessKey || saved.accessKey || `ak_demo_${randomBytes(18).toString('base64url')}`,
    secretKey: opts.fixed?.secretKey || saved.secretKey || `sk_demo_${randomBytes(24).toString('base64url')}`,
  };
  const client = grpcClient(AuthQuotaServiceClient, opts.authQuotaAddress);
  try {
    await callUnary(client, client.createAccount, {
      name: 'Demo',
      plan: 'scale',
      access_key: keys.accessKey,
      secret_key: keys.secretKey,
    });
  } catch (err) {
    // Already there from an earlier start: the same keys keep working.
    if ((err as { code?: string }).code !== 'conflict') throw err;
  } finally {
    client.close();
  }
  writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 });
  return keys;
}
