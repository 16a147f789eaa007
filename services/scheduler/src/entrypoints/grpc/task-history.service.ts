import { AppError } from '@app/errors';
import type { Logger } from '@app/logging';
import { unaryHandler } from '@app/rpc';
import type { TaskHistoryServiceServer } from '@app/proto/scheduler/history';
import type { CompareKeptRuns } from '../../application/compare-kept-runs.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A run id as runs have them (`<task>-<unix s>` or `<task>-now-<unix ms>-<8>`): else 400 naming the field. */
const RUN_ID = /^\d{1,15}-(\d{1,15}|now-\d{1,15}-[A-Za-z0-9]{1,8})$/;
const runIdOf = (value: string, parameter: 'from' | 'to'): string => {
  if (!RUN_ID.test(value)) {
    const message = value === '' ? `${parameter} is required: a run id` : `${parameter} must be a run id (as GET /v1/tasks/{id}/runs lists them)`;
    throw new AppError('invalid_parameter', `${message}.`, { details: [{ parameter, message }] });
  }
  return value;
};

/** TaskHistoryService: a monitoring task's kept runs compared; another account's task is task_not_found. */
export function taskHistoryService(deps: { compare: CompareKeptRuns; logger: Logger }): TaskHistoryServiceServer {
  return {
    compareTaskRuns: unaryHandler(async (req) => {
      if (!req.account_id) {
        throw new AppError('invalid_parameter', 'account_id is required.', { details: [{ parameter: 'account_id', message: 'account_id is required' }] });
      }
      const change = await deps.compare(req.account_id, req.id, runIdOf(req.from, 'from'), runIdOf(req.to, 'to'));
      return {
        change: {
          status: change.status,
          score: change.score,
          summary: change.summary,
          diff: change.diff,
          before: change.before,
          after: change.after,
          boxes: change.boxes,
          compared: seconds(change.comparedAt),
        },
      };
    }, deps.logger),
  };
}
