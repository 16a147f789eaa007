import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBus, type TestBus } from '@app/testkit';
import { SUBJECTS } from '@app/messaging';
import { natsStartGate } from './nats-start-gate.js';

// On a real nats-server 2.9: what a renderer hears when it asks to start a job, and when nobody listens.
let bus: TestBus;

beforeAll(async () => {
  bus = await startTestBus('start-gate');
});

afterAll(() => bus?.stop());

/** An edge waiting for `jobId` from `afterMs` on: it answers the start question with `answer`. */
const edgeListening = (jobId: string, answer: string, afterMs = 0) =>
  new Promise<void>((listening) =>
    setTimeout(() => {
      bus.nc.subscribe(SUBJECTS.renderStart({ job_id: jobId }), { max: 1, callback: (_err, msg) => msg.respond(new TextEncoder().encode(answer)) });
      void bus.nc.flush().then(() => listening());
    }, afterMs),
  );

describe('Asking the edge to start a job', () => {
  describe('When the edge that waits answers', () => {
    it.each([
      ['go', 'go'],
      ['shed', 'shed'],
    ] as const)('should hear %s', async (answer, heard) => {
      const jobId = `job-${answer}`;
      await edgeListening(jobId, answer);
      expect(await natsStartGate(bus.nc).confirm({ job_id: jobId }, Date.now())).toBe(heard);
    });
  });

  describe('When nobody listens yet for a job queued a moment ago (the edge’s interest still travelling)', () => {
    it('should ask again and start the job once the edge is heard', async () => {
      const listening = edgeListening('job-late', 'go', 200);
      const startedMs = Date.now();
      const answer = await natsStartGate(bus.nc).confirm({ job_id: 'job-late' }, startedMs);
      await listening;
      expect(answer).toBe('go');
      expect(Date.now() - startedMs).toBeGreaterThanOrEqual(200);
    });
  });

  describe('When nobody listens for a job queued longer ago than interest takes to travel (its edge gave up)', () => {
    it('should drop it at once, without asking again', async () => {
      const startedMs = Date.now();
      expect(await natsStartGate(bus.nc, { settleMs: 1_000 }).confirm({ job_id: 'job-abandoned' }, startedMs - 5_000)).toBe('shed');
      expect(Date.now() - startedMs).toBeLessThan(500);
    });
  });

  describe('When nobody listens within the settling time', () => {
    it('should drop it once that time is over', async () => {
      const startedMs = Date.now();
      expect(await natsStartGate(bus.nc, { settleMs: 300 }).confirm({ job_id: 'job-never' }, startedMs)).toBe('shed');
      const took = Date.now() - startedMs;
      expect(took).toBeGreaterThanOrEqual(300);
      expect(took).toBeLessThan(1_500);
    });
  });
});
