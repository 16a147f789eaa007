import { EDGE_RENDER_EVENTS_CONSUMER, SUBJECTS, ack, pullWorkers, term, type JetStreamClient, type PullWorkers } from '@app/messaging';
import { RenderFinished, RenderStarted } from '@app/proto/render';
import type { Logger } from '@app/logging';
import type { FinishAsyncRender } from '../finish-async-render.js';

/**
 * The edge replicas' shared durable consumer of async render events (`render.async.>`): folds them into
 * async render status and indexes cache entries. A failure (NATS briefly away) is nak'ed and comes back;
 * every step is idempotent.
 */
export function renderEventsConsumer(deps: { js: JetStreamClient; finish: FinishAsyncRender; logger: Logger; workers?: number }): PullWorkers {
  const { finish, logger } = deps;
  return pullWorkers({
    js: deps.js,
    stream: EDGE_RENDER_EVENTS_CONSUMER.stream,
    durable: EDGE_RENDER_EVENTS_CONSUMER.config.durable_name,
    concurrency: deps.workers ?? 2,
    logger,
    errorDelayMs: 2_000,
    span: (msg) => ({ name: 'render event', attributes: { 'messaging.subject': msg.subject } }),
    async handle(msg) {
      let work: () => Promise<void>;
      try {
        if (SUBJECTS.renderEventKindOf(msg.subject) === 'started') {
          const event = RenderStarted.decode(msg.data);
          work = () => finish.started(event);
        } else {
          const event = RenderFinished.decode(msg.data);
          work = () => finish.finished(event);
        }
      } catch (err) {
        logger.error({ err, subject: msg.subject }, 'undecodable render event: dropped');
        return term;
      }
      await work();
      return ack;
    },
  });
}
