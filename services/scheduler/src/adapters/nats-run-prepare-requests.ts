import pMap from 'p-map';
import { SUBJECTS, type JetStreamClient } from '@app/messaging';
import { runIdOf } from '../domain/task/task.js';
import { encodePrepareRequest, type PrepareRequest } from '../application/prepare-request.js';

/** Publishes awaiting their acknowledgement at once, at most. */
const PUBLISH_CONCURRENCY = 256;

/**
 * Announces runs to prepare on `scheduler.run.prepare`, one message per run (its id is the run's, so every
 * replica may announce the same occurrence and the stream keeps one). A minute's burst is published a
 * bounded number at a time: thousands of publishes awaiting their acks at once only time out together.
 */
export function natsRunPrepareRequests(js: JetStreamClient) {
  return async (runs: PrepareRequest[]): Promise<void> => {
    await pMap(
      runs,
      (r) => js.publish(SUBJECTS.taskRunPrepare, encodePrepareRequest(r), { msgID: `prepare:${runIdOf(r.taskId, r.dueAt)}` }),
      { concurrency: PUBLISH_CONCURRENCY },
    );
  };
}
