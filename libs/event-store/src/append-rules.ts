import { randomUUID } from 'node:crypto';
import { appendErrors } from './append-errors.js';
import type { AppendResult, ExpectedVersion, NewEvent, StoredEvent } from './event-store.js';

/** An event ready to be written: id and metadata filled in. */
export interface EventToAppend {
  id: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
}

/** Checks an append request (the adapters trust nothing else) and gives every event an id. */
export function prepareAppend(streamId: string, events: NewEvent[], expected: ExpectedVersion): EventToAppend[] {
  if (typeof streamId !== 'string' || streamId.length === 0) {
    throw appendErrors.invalidAppend('streamId', 'must be a non-empty string');
  }
  if (!isExpectedVersion(expected)) {
    throw appendErrors.invalidAppend('expectedVersion', "must be an integer ≥ 0, 'no_stream' or 'stream_exists'");
  }
  if (events.length === 0) throw appendErrors.invalidAppend('events', 'an append needs at least one event');
  const prepared = events.map((e) => {
    if (typeof e.type !== 'string' || e.type.length === 0) {
      throw appendErrors.invalidAppend('events.type', 'must be a non-empty string');
    }
    return { id: e.id ?? randomUUID(), type: e.type, data: e.data, metadata: e.metadata ?? {} };
  });
  if (new Set(prepared.map((e) => e.id)).size !== prepared.length) {
    throw appendErrors.invalidAppend('events.id', 'event ids must be unique within an append');
  }
  return prepared;
}

function isExpectedVersion(expected: unknown): expected is ExpectedVersion {
  return (
    expected === 'no_stream' ||
    expected === 'stream_exists' ||
    (typeof expected === 'number' && Number.isSafeInteger(expected) && expected >= 0)
  );
}

export function assertExpectedVersion(streamId: string, current: number, expected: ExpectedVersion): void {
  const ok = expected === 'stream_exists' ? current > 0 : current === (expected === 'no_stream' ? 0 : expected);
  if (!ok) throw appendErrors.concurrencyConflict(streamId, expected, current);
}

/**
 * What an append means when the store already holds some of its event ids (`committed`, found by id):
 * null when it holds none (a new append); the earlier events when all of them were committed by this very
 * append, in order and at the expected version (an idempotent replay); otherwise `conflict`.
 */
export function replayedAppend(
  streamId: string,
  toAppend: EventToAppend[],
  expected: ExpectedVersion,
  committed: StoredEvent[],
): StoredEvent[] | null {
  if (committed.length === 0) return null;
  const byId = new Map(committed.map((e) => [e.id, e]));
  const earlier = toAppend.map((e) => byId.get(e.id));
  if (!earlier.every((e): e is StoredEvent => e !== undefined)) throw appendErrors.eventIdsReused(streamId);
  const firstVersion =
    expected === 'stream_exists' ? earlier[0]!.version : (expected === 'no_stream' ? 0 : expected) + 1;
  const inPlace = earlier.every((e, i) => e.streamId === streamId && e.version === firstVersion + i);
  if (!inPlace) throw appendErrors.eventIdsReused(streamId);
  return earlier;
}

export function appendResult(events: StoredEvent[]): AppendResult {
  const last = events[events.length - 1]!;
  return { nextExpectedVersion: last.version, globalPosition: last.globalPosition, events };
}
