import { hasCode } from '@app/errors';
import { aggregateStream } from './aggregate-stream.js';
import type { EventStore, NewEvent, Stored } from './event-store.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** An aggregate as pure functions (emmett style): decide turns a command into events, evolve folds them. */
export interface Decider<S, C, E extends NewEvent> {
  decide(command: C, state: S): E | E[];
  evolve(state: S, event: Stored<E>): S;
  initialState(): S;
}

export interface HandleCommandOptions {
  /** Re-runs after a concurrency conflict before the conflict is rethrown (default 3). */
  retries?: number;
  /** Wait before the first re-run (default 100 ms); each later wait is `factor` (default 1.5) times longer. */
  minDelayMs?: number;
  factor?: number;
}

export interface CommandResult<S, E extends NewEvent> {
  newEvents: Stored<E>[];
  nextExpectedVersion: number;
  newState: S;
}

/**
 * Reads the stream, folds it, decides, and appends with the version it read. When another writer got in
 * between (`concurrency_conflict`) it starts over from the read, with backoff, and rethrows the conflict
 * once the retries are spent. A decision with no events appends nothing.
 */
export async function handleCommand<S, C, E extends NewEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<S, C, E>,
  command: C,
  opts: HandleCommandOptions = {},
): Promise<CommandResult<S, E>> {
  const { retries = 3, minDelayMs = 100, factor = 1.5 } = opts;
  for (let attempt = 0; ; attempt++) {
    try {
      return await decideAndAppend(store, streamId, decider, command);
    } catch (err) {
      if (!hasCode(err, 'concurrency_conflict') || attempt >= retries) throw err;
      await sleep(minDelayMs * factor ** attempt);
    }
  }
}

async function decideAndAppend<S, C, E extends NewEvent>(
  store: EventStore,
  streamId: string,
  { decide, evolve, initialState }: Decider<S, C, E>,
  command: C,
): Promise<CommandResult<S, E>> {
  const { state, version } = await aggregateStream(store, streamId, evolve, initialState);
  const decided = decide(command, state);
  const events = Array.isArray(decided) ? decided : [decided];
  if (events.length === 0) return { newEvents: [], nextExpectedVersion: version, newState: state };
  const appended = await store.append(streamId, events, { expectedVersion: version });
  const newEvents = appended.events as unknown as Stored<E>[];
  const newState = newEvents.reduce((s, e) => evolve(s, e), state);
  return { newEvents, nextExpectedVersion: appended.nextExpectedVersion, newState };
}
