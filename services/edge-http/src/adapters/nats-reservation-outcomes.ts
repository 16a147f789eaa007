import { announceReservationEnded } from '@app/admission-client';
import type { JetStreamClient } from '@app/messaging';
import type { ReservationOutcomes } from '../application/ports.js';

/** How requests holding a reservation ended, announced on RENDER_EVENTS for auth-quota to settle. */
export function natsReservationOutcomes(js: JetStreamClient): ReservationOutcomes {
  return {
    ended: (e) => announceReservationEnded(js, { ...e, origin: 'api' }),
  };
}
