/** A run to prepare ahead of its due time: one message per run on `scheduler.run.prepare`. */
export interface PrepareRequest {
  taskId: number;
  dueAt: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const encodePrepareRequest = (r: PrepareRequest): Uint8Array => encoder.encode(JSON.stringify({ taskId: r.taskId, dueAt: r.dueAt }));

/** A prepare request's payload; undefined when it is not one. */
export function decodePrepareRequest(data: Uint8Array): PrepareRequest | undefined {
  try {
    const v = JSON.parse(decoder.decode(data)) as Partial<PrepareRequest>;
    return Number.isSafeInteger(v.taskId) && Number.isFinite(v.dueAt) ? { taskId: v.taskId!, dueAt: v.dueAt! } : undefined;
  } catch {
    return undefined;
  }
}
