import { outboxRelay, type EventStore, type OutboxRelay, type StoredEvent } from '@app/event-store';

/**
 * The one task event read from the SCHEDULER stream: a run started at its due instant, whose job is still
 * to be made (`scheduler.task.run-started`, by the run-dispatch consumer). A prepared run starts with its
 * job published (`jobId` set), and no other event has a consumer: those are not relayed (the store keeps
 * them, the task views read them from there). A comparison that found a change to announce is relayed too
 * (`scheduler.task.changed`).
 */
export const relayedTaskEvent = (e: Pick<StoredEvent, 'type' | 'data'>): boolean =>
  (e.type === 'TaskRunStarted' && typeof (e.data as { jobId?: unknown }).jobId !== 'string') ||
  // A monitoring task's change to announce (the webhook dispatcher delivers it as task.changed).
  // and a failing episode's start and end (task.failing, task.recovered).
  ((e.type === 'TaskRunCompared' || e.type === 'TaskFailing' || e.type === 'TaskRecovered') && (e.data as { announce?: unknown }).announce !== undefined);

/** The scheduler's outbox relay: the events it consumes, published with `publish` (natsTaskEventPublisher). */
export function taskEventRelay(
  store: EventStore,
  publish: (e: StoredEvent) => Promise<void>,
  opts: { intervalMs: number; batch?: number; onError?: (err: unknown) => void },
): OutboxRelay {
  return outboxRelay(store, publish, {
    intervalMs: opts.intervalMs,
    batch: opts.batch ?? 1_000,
    // Run-started events are dispatched by message id, from the stream's state: order across events is not needed.
    inFlight: 256,
    relays: relayedTaskEvent,
    ...(opts.onError ? { onError: opts.onError } : {}),
  });
}
