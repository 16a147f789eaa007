import { SUBJECTS, publishUntilStored, traceHeaders, type JetStreamClient } from '@app/messaging';
import { RenderFinished } from '@app/proto/render';

/**
 * Announces how a request holding a quota reservation ended, told by its holder: a synchronous render's
 * answer (charged only when its caller got the result), a request refused after admission, a task
 * created, a run that could not be dispatched. On the same stream as render outcomes, so auth-quota
 * settles every reservation in one place. Deduplicated by reservation id,
 * and sent again while the stream cannot store it for a moment (a NATS node lost, a leader being elected):
 * otherwise the reservation would stay open until its hold expires.
 */
export async function announceReservationEnded(
  js: JetStreamClient,
  e: { accountId: string; reservationId: string; succeeded: boolean; origin: 'api' | 'task' },
): Promise<void> {
  const now = Date.now();
  const event = RenderFinished.fromPartial({
    job_id: e.reservationId,
    account_id: e.accountId,
    status: e.succeeded ? 'succeeded' : 'failed',
    started_unix_ms: now,
    finished_unix_ms: now,
    created_unix_ms: now,
    origin: e.origin,
    reservation_id: e.reservationId,
  });
  await publishUntilStored(js, SUBJECTS.renderEvent('nojob', 'ended', e.reservationId), RenderFinished.encode(event).finish(), {
    msgID: `ended:${e.reservationId}`,
    headers: traceHeaders(),
  });
}
