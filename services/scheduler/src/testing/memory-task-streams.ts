import { evolve, initialState } from '../domain/task/task.decider.js';
import type { Task, TaskEvent } from '../domain/task/task.js';
import type { TaskStreams } from '../application/ports.js';

/** TaskStreams in memory (for use-case unit tests): the same decider, no store. */
export function memoryTaskStreams(initial: Record<number, TaskEvent[]> = {}) {
  const streams = new Map<number, TaskEvent[]>(Object.entries(initial).map(([id, events]) => [Number(id), [...events]]));
  const fold = (taskId: number): Task => (streams.get(taskId) ?? []).reduce(evolve, initialState());
  const port: TaskStreams = {
    async load(taskId) {
      return { state: fold(taskId), version: streams.get(taskId)?.length ?? 0 };
    },
    async change(taskId, decide) {
      const before = fold(taskId);
      const events = decide(before);
      const all = [...(streams.get(taskId) ?? []), ...events];
      streams.set(taskId, all);
      return { before, after: events.reduce(evolve, before), events, version: all.length };
    },
  };
  return { port, events: (taskId: number) => streams.get(taskId) ?? [] };
}
