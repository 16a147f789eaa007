import { metrics } from '@opentelemetry/api';
import { AUTH_QUOTA_SETTLEMENTS_CONSUMER, SUBJECTS, ack, decodeOrLog, pullWorkers, term, type JetStreamClient, type PullWorkers } from '@app/messaging';
import { RenderFinished } from '@app/proto/render';
import type { Logger } from '@app/logging';
import type { Admission } from '../application/admission.js';

const ACCOUNT_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * Settlements read from RENDER_EVENTS: every render job's outcome (async, task and sync renders, the
 * watchdog's failures) and every end a reservation's holder announced on the bus because auth-quota could
 * not be reached (`render.nojob.ended.<id>`; normally the holder calls EndReservation). Each is handed to
 * `settle` as told by the job or by the holder: the reservation's recorded settler decides whether it
 * counts (a synchronous render's job outcome never does: its caller's answer ends it, so such an outcome
 * is acknowledged unread). Success commits,
 * anything else releases; a repeat changes nothing; a reservation nobody knows is an error, logged and
 * counted. The auth-quota replicas share the durable consumer, so a killed replica's settlement is
 * redelivered to another; a failure to reach the bucket naks the outcome and it comes back.
 */
export function renderOutcomesConsumer(deps: { js: JetStreamClient; admission: Admission; logger: Logger }) {
  const { admission, logger } = deps;
  const counter = metrics.getMeter('auth-quota').createCounter('quota_settlements_unknown', {
    description: 'Render outcomes naming a quota reservation that auth-quota does not know',
  });
  let unknown = 0;
  const workers: PullWorkers = pullWorkers({
    js: deps.js,
    stream: AUTH_QUOTA_SETTLEMENTS_CONSUMER.stream,
    durable: AUTH_QUOTA_SETTLEMENTS_CONSUMER.config.durable_name,
    concurrency: 4,
    prefetch: true,
    logger,
    errorDelayMs: 1_000,
    span: (msg) => ({ name: 'settle reservation', attributes: { 'messaging.subject': msg.subject } }),
    async handle(msg) {
      // A start settles nothing; nor does a synchronous render's outcome: its caller's answer ends the
      // reservation (its recorded settler), so it is not even decoded.
      if (SUBJECTS.renderEventKindOf(msg.subject) === 'started' || SUBJECTS.renderEventOriginOf(msg.subject) === 'sync') return ack;
      const event = decodeOrLog(msg, RenderFinished.decode, logger, 'render outcome');
      if (!event) return term;
      const reservationId = event.reservation_id;
      if (!reservationId) return ack;
      const by = SUBJECTS.renderEventOriginOf(msg.subject) === 'nojob' ? 'answer' : 'job';
      const succeeded = event.status === 'succeeded' && (event.result !== undefined || by === 'answer');
      const result = ACCOUNT_ID.test(event.account_id) ? await admission.settle(event.account_id, reservationId, succeeded, by) : 'unknown';
      if (result === 'unknown') {
        unknown++;
        counter.add(1);
        logger.error(
          { reservationId, accountId: event.account_id, jobId: event.job_id, status: event.status },
          'settlement of an unknown quota reservation',
        );
      }
      return ack;
    },
  });
  return { ...workers, unknownSettlements: () => unknown };
}
