import { callUnary, grpcClient } from '@app/rpc';
import { TaskHistoryServiceClient } from '@app/proto/scheduler/history';
import type { RunChangeResource, TaskScheduler } from '../tasks/index.js';

/** The scheduler's TaskHistoryService over gRPC: two kept runs of a monitoring task compared. */
export function grpcTaskHistory(addresses: string): Pick<TaskScheduler, 'compare'> & { close(): void } {
  const client = grpcClient(TaskHistoryServiceClient, addresses);
  return {
    async compare(accountId, id, runs) {
      const { change } = await callUnary(client, client.compareTaskRuns, { account_id: accountId, id, from: runs.from, to: runs.to });
      if (!change) throw new Error('the scheduler answered without a comparison');
      const resource: RunChangeResource = {
        status: change.status,
        score: change.score,
        summary: change.summary,
        diff: change.diff ?? null,
        before: change.before ?? null,
        after: change.after ?? null,
        boxes: change.boxes,
        compared: change.compared,
      };
      return resource;
    },
    close: () => client.close(),
  };
}
