import { SUBJECTS, type JetStreamClient } from '@app/messaging';
import { runIdOf } from '../domain/task/task.js';

export interface PrepareRequest {
  taskId: number;
  dueAt: number;
}

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
 * replica may announce the same occurrence and the stream keeps one).
 */
export function natsRunPrepareRequests(js: JetStreamClient) {
  return async (runs: PrepareRequest[]): Promise<void> => {
    await Promise.all(
      runs.map((r) => js.publish(SUBJECTS.taskRunPrepare, encoder.encode(JSON.stringify(r)), { msgID: `prepare:${runIdOf(r.taskId, r.dueAt)}` })),
    );
  };
}
