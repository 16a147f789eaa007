import { credentials } from '@grpc/grpc-js';
import { hasCode } from '@app/errors';
import { AuthQuotaServiceClient } from '@app/proto/authquota';
import type { CreateTaskRequest, SchedulerServiceClient } from '@app/proto/scheduler';
import { callUnary } from '@app/rpc';
import type { Stack } from '@app/stack';
import { accountsAdmin } from '@app/testkit';
import { runConcurrently } from './stats.js';

/** The demo account and Scale accounts made up to `count` (a platform's tasks belong to many accounts). */
export async function benchAccounts(stack: Stack, count: number, prefix: string): Promise<string[]> {
  const auth = new AuthQuotaServiceClient(stack.authQuotaAddress, credentials.createInsecure());
  const admin = accountsAdmin(stack.authQuotaAddress);
  try {
    const ids = [(await callUnary(auth, auth.authenticate, { access_key: stack.demo.accessKey })).account!.account_id];
    while (ids.length < count) ids.push((await admin.create('scale', `${prefix}-${ids.length}`)).accountId);
    return ids;
  } finally {
    auth.close();
    admin.close();
  }
}

/**
 * Creates `count` tasks, 16 at a time. A busy store may answer a creation `concurrency_conflict` ("retry
 * shortly"): the client retries.
 */
export async function createTasks(scheduler: SchedulerServiceClient, count: number, request: (i: number) => CreateTaskRequest): Promise<void> {
  const create = async (i: number) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await callUnary(scheduler, scheduler.createTask, request(i), { timeoutMs: 30_000 });
      } catch (err) {
        if (attempt >= 5 || !hasCode(err, 'concurrency_conflict')) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
  };
  await runConcurrently(count, 16, create);
}
