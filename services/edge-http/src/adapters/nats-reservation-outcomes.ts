import { announceReservationEnded } from '@app/admission-client';
import type { JetStreamClient } from '@app/messaging';
import type { ReservationOutcomes } from '../application/ports.js';

/** Reservations that ended without a render job, announced on RENDER_EVENTS for auth-quota to settle. */
export function natsReservationOutcomes(js: JetStreamClient): ReservationOutcomes {
  return {
    ended: (e) => announceReservationEnded(js, { ...e, origin: 'api' }),
  };
}
