import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBus, type TestBus } from '@app/testkit';
import { STREAMS, ensureTopology, jetstream, jetstreamManager } from '@app/messaging';
import { RenderFinished } from '@app/proto/render';
import { announceReservationEnded } from './reservation-outcomes.js';

// On a real nats-server 2.9: a reservation's end announced while the render events stream cannot take it
// (as one electing its leader answers: nobody) reaches the stream once it can, for auth-quota to settle.
let bus: TestBus;

beforeAll(async () => {
  bus = await startTestBus('reservation-outcomes');
});

afterAll(() => bus?.stop());

describe('Announcing a reservation that ended without a render job', () => {
  describe('When the render events stream is not there to answer for a second', () => {
    it('should store the announcement once the stream is back', async () => {
      const jsm = await jetstreamManager(bus.nc);
      await jsm.streams.delete(STREAMS.RENDER_EVENTS.name);
      const announcing = announceReservationEnded(jetstream(bus.nc, { timeout: 500 }), {
        accountId: 'acct-1',
        reservationId: 'res-1',
        succeeded: false,
        origin: 'api',
      });
      await new Promise((r) => setTimeout(r, 1_000));
      await ensureTopology(bus.nc);
      await announcing;
      const stored = await jsm.streams.getMessage(STREAMS.RENDER_EVENTS.name, { last_by_subj: 'render.nojob.ended.res-1' });
      expect(RenderFinished.decode(stored!.data)).toMatchObject({ reservation_id: 'res-1', account_id: 'acct-1', status: 'failed' });
    });
  });
});
