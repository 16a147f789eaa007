import type { Logger } from '@app/logging';
import { AccountSecretsServiceClient } from '@app/proto/authquota/secrets';
import { callUnary, grpcClient } from '@app/rpc';
import type { TaskSessions } from '../application/ports.js';

/**
 * Forgets a task's kept session at auth-quota (any replica). Best effort: a session left behind belongs
 * to a task id never given again, and is read by no one; the failure is logged (without the session).
 */
export function grpcTaskSessions(addresses: string, logger: Logger): TaskSessions & { close(): void } {
  const client = grpcClient(AccountSecretsServiceClient, addresses, { retryServices: ['authquota.v1.AccountSecretsService'] });
  return {
    async forget(accountId, taskId) {
      await callUnary(client, client.forgetTaskSession, { account_id: accountId, task_id: String(taskId) }, { failover: true }).catch((err: unknown) =>
        logger.warn({ err, taskId }, "forgetting a task's kept session failed"),
      );
    },
    close: () => client.close(),
  };
}
