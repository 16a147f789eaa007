import pMap from 'p-map';
import { SUBJECTS, type JetStreamClient } from '@app/messaging';
import { runIdOf } from '../domain/task/task.js';

export interface PrepareRequest {
  taskId: number;
  dueAt: number;
}

/** Publishes awaiting their acknowledgement at once, at most. */
const PUBLISH_CONCURRENCY = 256;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A prepare request's payload; undefined when it is not one. */
export function decodePrepareRequest(data: Uint8Array): PrepareRequest | undefined {
  try {
    const v = JSON.parse(decoder.decode(data)) as Partial<PrepareRequest>;
    return Number.isSafeInteger(v.taskId) && Number.isFinite(v.dueAt) ? { taskId: v.taskId!, dueAt: v.dueAt! } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Announces runs to prepare on `scheduler.run.prepare`, one message per run (its id is the run's, so every
 * replica may announce the same occurrence and the stream keeps one). A minute's burst is published a
 * bounded number at a time: thousands of publishes awaiting their acks at once only time out together.
 */
export function natsRunPrepareRequests(js: JetStreamClient) {
  return async (runs: PrepareRequest[]): Promise<void> => {
    await pMap(
      runs,
      (r) => js.publish(SUBJECTS.taskRunPrepare, encoder.encode(JSON.stringify(r)), { msgID: `prepare:${runIdOf(r.taskId, r.dueAt)}` }),
      { concurrency: PUBLISH_CONCURRENCY },
    );
  };
}
