import { announceReservationEnded } from '@app/admission-client';
import type { JetStreamClient } from '@app/messaging';
import type { AuthQuota, ReservationOutcomes } from '../application/ports.js';

/**
 * How requests holding a reservation ended: told to auth-quota at once (EndReservation, so the account's
 * next request finds the render ended), and announced on RENDER_EVENTS instead when no auth-quota replica
 * answers, for auth-quota to settle when it reads it. Either way the reservation ends without waiting
 * for its hold to expire.
 */
export function reservationEnds(authQuota: Pick<AuthQuota, 'endReservation'>, js: JetStreamClient): ReservationOutcomes {
  return {
    async ended(e) {
      try {
        await authQuota.endReservation(e);
      } catch {
        await announceReservationEnded(js, { ...e, origin: 'api' });
      }
    },
  };
}
