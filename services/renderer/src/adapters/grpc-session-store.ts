import { AccountSecretsServiceClient } from '@app/proto/authquota/secrets';
import { callUnary, grpcClient } from '@app/rpc';
import type { SessionStore } from '../application/ports.js';

/**
 * Tasks' kept page sessions, read and kept at auth-quota (any replica), which seals them: a session
 * travels only over this internal call, never in a job, an event or a log.
 */
export function grpcSessionStore(addresses: string): SessionStore & { close(): void } {
  const client = grpcClient(AccountSecretsServiceClient, addresses, { retryServices: ['authquota.v1.AccountSecretsService'] });
  return {
    async read(accountId, taskId) {
      return (await callUnary(client, client.readTaskSession, { account_id: accountId, task_id: taskId }, { failover: true })).session;
    },
    async keep(accountId, taskId, session) {
      await callUnary(client, client.keepTaskSession, { account_id: accountId, task_id: taskId, session }, { failover: true });
    },
    close: () => client.close(),
  };
}
