#!/usr/bin/env node
// Administration of accounts over gRPC: npm run admin -- <command> [--options]
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AuthQuotaServiceClient } from '@app/proto/authquota';
import { callUnary, grpcClient } from '@app/rpc';
import { isAppError } from '@app/errors';

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  create-account --plan free|basic|growth|scale [--name NAME]   open an account; prints its keys (shown once)
  rotate-keys --account ID                                     new access and secret keys; the old ones stop at once
  change-plan --account ID --plan PLAN
  require-signatures --account ID [--off]                      signed requests required (or no longer)
  set-billing --account ID --status paid|unpaid                an unpaid invoice blocks the account with 402
  usage --account ID

auth-quota is found at AUTH_QUOTA_ADDR, else in DATA_DIR/stack.json (written by npm start).`;

function authQuotaAddress(): string {
  if (process.env.AUTH_QUOTA_ADDR) return process.env.AUTH_QUOTA_ADDR;
  const file = join(process.env.DATA_DIR ?? '.data', 'stack.json');
  if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { authQuotaAddress: string }).authQuotaAddress;
  return '127.0.0.1:50051';
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

async function main() {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      plan: { type: 'string' },
      name: { type: 'string' },
      status: { type: 'string' },
      off: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals[0];
  if (!command || values.help) fail(USAGE);
  const need = (name: 'account' | 'plan' | 'status') => values[name] ?? fail(`${command} needs --${name}\n\n${USAGE}`);

  const client = grpcClient(AuthQuotaServiceClient, authQuotaAddress());
  try {
    let result: unknown;
    switch (command) {
      case 'create-account':
        result = await callUnary(client, client.createAccount, { name: values.name ?? 'account', plan: need('plan') });
        break;
      case 'rotate-keys':
        result = await callUnary(client, client.rotateKeys, { account_id: need('account') });
        break;
      case 'change-plan':
        result = await callUnary(client, client.changePlan, { account_id: need('account'), plan: need('plan') });
        break;
      case 'require-signatures':
        result = await callUnary(client, client.setSignatureRequirement, { account_id: need('account'), required: !values.off });
        break;
      case 'set-billing':
        result = await callUnary(client, client.setBillingStatus, { account_id: need('account'), billing_status: need('status') });
        break;
      case 'usage':
        result = await callUnary(client, client.getUsage, { account_id: need('account') });
        break;
      default:
        fail(`Unknown command ${command}\n\n${USAGE}`);
    }
    console.log(JSON.stringify(result, null, 2));
  } catch (err) {
    fail(isAppError(err) ? `${err.code}: ${err.message}` : `Failed: ${(err as Error).message}`);
  } finally {
    client.close();
  }
}

await main();
