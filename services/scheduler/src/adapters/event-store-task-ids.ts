import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, hasCode } from '@app/errors';
import type { EventStore } from '@app/event-store';
import type { TaskIds } from '../application/ports.js';

/** The counter stream: its version is the last id handed out. */
export const TASK_IDS_STREAM = 'scheduler-task-ids';

const MAX_ATTEMPTS = 50;

/**
 * Task ids from a counter stream: the next id is the stream's next version, taken by appending
 * `TaskIdAllocated` with the current version as expected version. Two replicas asking at once collide
 * in the store; the loser reads the new version and tries the next number. Ids are unique and increasing;
 * an id whose task was never created (a crash in between) is simply skipped.
 */
export function eventStoreTaskIds(store: EventStore): TaskIds {
  let known = 0;
  return {
    async next() {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const newer = await store.readStream(TASK_IDS_STREAM, { fromVersion: known + 1 });
        if (newer.length > 0) known = newer[newer.length - 1]!.version;
        const id = known + 1;
        try {
          const appended = await store.append(TASK_IDS_STREAM, [{ type: 'TaskIdAllocated', data: { taskId: id } }], {
            expectedVersion: known,
          });
          known = appended.nextExpectedVersion;
          return id;
        } catch (err) {
          if (!hasCode(err, 'concurrency_conflict')) throw err;
          await sleep(Math.random() * 5 * (attempt + 1));
        }
      }
      throw new AppError('concurrency_conflict', 'No task id could be allocated; retry shortly.');
    },
  };
}
