import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBus, type TestBus } from '@app/testkit';
import { SUBJECTS, jetstream } from '@app/messaging';
import { openRenderJobPublisher } from '@app/render-contracts';
import { RenderFinished, RenderJob } from '@app/proto/render';
import { natsRenderQueue } from './nats-render-queue.js';

// On a real nats-server 2.9: a sync render's outcome that never reached the edge's subscription (published
// while the edge's connection was down) is read from RENDER_EVENTS, where the renderer stored it.
let bus: TestBus;

beforeAll(async () => {
  bus = await startTestBus('render-queue');
});

afterAll(() => bus?.stop());

describe('Waiting for a sync render', () => {
  describe('When its outcome was stored while the subscription could not see it', () => {
    it('should answer with the stored outcome, not a timeout', async () => {
      const js = jetstream(bus.nc);
      const outcome = RenderFinished.fromPartial({ job_id: 'job-missed', account_id: 'acct-1', status: 'succeeded', reservation_id: 'res-1' });
      await js.publish(SUBJECTS.renderEvent('sync', 'finished', 'job-missed'), RenderFinished.encode(outcome).finish(), { msgID: 'job-missed' });
      const queue = natsRenderQueue(bus.nc, await openRenderJobPublisher(bus.nc, js));
      const job = RenderJob.fromPartial({ job_id: 'job-missed', account_id: 'acct-1', operation: 'screenshot', origin: 'api', reservation_id: 'res-1' });
      const finished = await queue.submitAndWait(job, { startWithinMs: 10_000, waitMs: 500 });
      expect(finished).toMatchObject({ job_id: 'job-missed', status: 'succeeded', reservation_id: 'res-1' });
    });
  });
});
