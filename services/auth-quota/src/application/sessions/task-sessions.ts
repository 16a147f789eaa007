import { aggregateStream, type EventStore } from '@app/event-store';
import { isAppError } from '@app/errors';
import {
  checkTaskSession,
  taskSessionDecider,
  taskSessionStreamId,
  type TaskSession,
  type TaskSessionEvent,
} from '../../domain/sessions/task-session.js';
import type { Clock, SecretBox } from '../ports.js';

const ATTEMPTS = 3;

/**
 * The page sessions of tasks with keep_session (cookies and local storage after a successful run), each
 * sealed under the master key like an account secret, in a stream of its own per account and task: one
 * task never reads another's, nor one account another's. The latest session is also the stream's
 * snapshot, so reading it is one row whatever the stream's length; an unchanged session adds no event.
 */
export function taskSessions(deps: { store: EventStore; box: SecretBox; clock: Clock }) {
  const { store, box, clock } = deps;
  const evolve = (s: TaskSession, e: TaskSessionEvent) => taskSessionDecider.evolve(s, e);
  const read = (streamId: string) => aggregateStream<TaskSession, TaskSessionEvent>(store, streamId, evolve, taskSessionDecider.initialState, { fromSnapshot: true });

  /** Decides on the latest state and appends, again on a concurrent write (another replica). */
  const change = async (streamId: string, decide: (state: TaskSession) => TaskSessionEvent[]): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      const { state, version } = await read(streamId);
      const events = decide(state);
      if (events.length === 0) return;
      try {
        const appended = await store.append(streamId, events, { expectedVersion: version });
        await store.saveSnapshot(streamId, appended.nextExpectedVersion, events.reduce(evolve, state));
        return;
      } catch (err) {
        if (attempt >= ATTEMPTS || !isAppError(err) || err.code !== 'concurrency_conflict') throw err;
      }
    }
  };

  return {
    /** The session kept for the task; undefined when none is. */
    async read(accountId: string, taskId: string): Promise<string | undefined> {
      checkTaskSession(accountId, taskId);
      const { state } = await read(taskSessionStreamId(accountId, taskId));
      return state.sealed === null ? undefined : box.open(state.sealed);
    },
    async keep(accountId: string, taskId: string, session: string): Promise<void> {
      checkTaskSession(accountId, taskId, session);
      const sealed = box.seal(session);
      await change(taskSessionStreamId(accountId, taskId), (state) =>
        taskSessionDecider.keep(state, sealed, state.sealed !== null && box.open(state.sealed) === session, clock.now().getTime()),
      );
    },
    async forget(accountId: string, taskId: string): Promise<void> {
      checkTaskSession(accountId, taskId);
      await change(taskSessionStreamId(accountId, taskId), (state) => taskSessionDecider.forget(state, clock.now().getTime()));
    },
  };
}

export type TaskSessions = ReturnType<typeof taskSessions>;
