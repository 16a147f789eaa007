import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestBus, type TestBus } from '@app/testkit';
import { STREAMS, SUBJECTS, jetstream, jetstreamManager, type BusStatus } from '@app/messaging';
import { openRenderJobPublisher } from '@app/render-contracts';
import { RenderFinished, RenderHandOver, RenderJob } from '@app/proto/render';
import { RenderAbandoned } from '../application/render-sync.js';
import { natsRenderQueue } from './nats-render-queue.js';

// On a real nats-server 2.9: a sync render's outcome that never reached the edge's subscription (published
// while the edge's connection was down) is read from RENDER_EVENTS, where the renderer stored it.
let bus: TestBus;

beforeAll(async () => {
  bus = await startTestBus('render-queue');
});

afterAll(() => bus?.stop());

/** A bus the test judges down (`down`): connected until then; `watched` while the wait still listens for it. */
function busJudge() {
  let listener: (() => void) | undefined;
  const status: BusStatus = { connected: () => true, check: async () => undefined, onReconnect: () => () => undefined, onDown: (l) => ((listener = l), () => (listener = undefined)) };
  return { status, down: () => listener!(), watched: () => listener !== undefined };
}

describe('Waiting for a sync render', () => {
  describe('When its outcome was stored while the subscription could not see it', () => {
    it('should answer with the stored outcome, not a timeout', async () => {
      const js = jetstream(bus.nc);
      const outcome = RenderFinished.fromPartial({ job_id: 'job-missed', account_id: 'acct-1', status: 'succeeded', reservation_id: 'res-1' });
      await js.publish(SUBJECTS.renderEvent('sync', 'finished', 'job-missed'), RenderFinished.encode(outcome).finish(), { msgID: 'job-missed' });
      const queue = natsRenderQueue(bus.nc, await openRenderJobPublisher(bus.nc, js));
      const job = RenderJob.fromPartial({ job_id: 'job-missed', account_id: 'acct-1', operation: 'screenshot', origin: 'api', reservation_id: 'res-1' });
      const { finished, body } = await queue.submitAndWait(job, { startWithinMs: 10_000, waitMs: 500 });
      expect(finished).toMatchObject({ job_id: 'job-missed', status: 'succeeded', reservation_id: 'res-1' });
      expect(body).toBeUndefined();
    });
  });

  const jobOf = (jobId: string) => RenderJob.fromPartial({ job_id: jobId, account_id: 'acct-1', operation: 'screenshot', origin: 'api' });
  /** The job as a renderer pulls it from the work queue, once it is the last one queued. */
  const queuedJob = (jobId: string) =>
    vi.waitFor(
      async () => {
        const msg = await (await jetstreamManager(bus.nc)).streams.getMessage(STREAMS.RENDER_JOBS.name, { last_by_subj: SUBJECTS.renderJobRequested });
        const job = RenderJob.decode(msg!.data);
        expect(job.job_id).toBe(jobId);
        return job;
      },
      { timeout: 5_000, interval: 20 },
    );
  /** What a renderer that pulled the job hears when it asks the edge to start it. */
  const askToStart = async (jobId: string) =>
    new TextDecoder().decode((await bus.nc.request(SUBJECTS.renderStart(await queuedJob(jobId)), new Uint8Array(), { timeout: 2_000 })).data);

  /** What a renderer hears when it hands the result over: "taken", "refused", or an error (nobody listens). */
  const handOver = async (jobId: string, body: Uint8Array) => {
    const finished = RenderFinished.fromPartial({ job_id: jobId, account_id: 'acct-1', status: 'succeeded', result: { object_name: '', content_type: 'image/png', extension: 'png', size: body.byteLength } });
    const data = RenderHandOver.encode({ finished, body: Buffer.from(body) }).finish();
    return new TextDecoder().decode((await bus.nc.request(SUBJECTS.renderHandOver(await queuedJob(jobId)), data, { timeout: 2_000 })).data);
  };

  /** A wait for `jobId` that a renderer was told to start ("go"). */
  const startedWait = async (jobId: string) => {
    const queue = natsRenderQueue(bus.nc, await openRenderJobPublisher(bus.nc, jetstream(bus.nc)));
    const waiting = queue.submitAndWait(jobOf(jobId), { startWithinMs: 30_000, waitMs: 30_000 });
    expect(await askToStart(jobId)).toBe('go');
    return { queue, waiting };
  };

  describe('When the renderer hands the result over while its caller waits', () => {
    it('should take it: the outcome comes with the bytes, and a second hand-over is refused', async () => {
      const { waiting } = await startedWait('job-handed');
      const [answer, outcome] = await Promise.all([handOver('job-handed', new Uint8Array([7, 8, 9])), waiting]);
      expect(answer).toBe('taken');
      expect(outcome.finished).toMatchObject({ job_id: 'job-handed', status: 'succeeded', result: { object_name: '', content_type: 'image/png' } });
      expect([...outcome.body!]).toEqual([7, 8, 9]);
      // The wait is over: a renderer offering again is refused, and stores the result.
      expect(await handOver('job-handed', new Uint8Array([1]))).toBe('refused');
    });
  });

  describe('When the renderer stored the outcome (not handed over) and tells it where the edge listens', () => {
    it('should answer with that outcome, without bytes (the result is read from the store)', async () => {
      const { queue, waiting } = await startedWait('job-stored');
      const stored = RenderFinished.fromPartial({ job_id: 'job-stored', account_id: 'acct-1', status: 'succeeded', result: { object_name: 'job-stored', content_type: 'image/png', extension: 'png', size: 9 } });
      bus.nc.publish(SUBJECTS.renderFinishedCall({ job_id: 'job-stored', caller_subject: queue.callerSubject }), RenderFinished.encode(stored).finish());
      const { finished, body } = await waiting;
      expect(finished).toMatchObject({ job_id: 'job-stored', result: { object_name: 'job-stored' } });
      expect(body).toBeUndefined();
    });
  });

  describe('When it waits for several jobs at once (one subscription for all of them)', () => {
    it("should give each wait its own renderer's questions and result", async () => {
      const js = jetstream(bus.nc);
      const queue = natsRenderQueue(bus.nc, await openRenderJobPublisher(bus.nc, js));
      const first = queue.submitAndWait(jobOf('job-first'), { startWithinMs: 30_000, waitMs: 30_000 });
      const firstJob = await queuedJob('job-first');
      const second = queue.submitAndWait(jobOf('job-second'), { startWithinMs: 30_000, waitMs: 30_000 });
      const secondJob = await queuedJob('job-second');
      expect(firstJob.caller_subject).toBe(queue.callerSubject);
      expect(secondJob.caller_subject).toBe(queue.callerSubject);
      expect(await askToStart('job-second')).toBe('go');
      expect(await handOver('job-second', new Uint8Array([2]))).toBe('taken');
      expect([...(await second).body!]).toEqual([2]);
      // The first still waits: asked now, it starts and takes its own result.
      const ask = (subject: string, data?: Uint8Array) => bus.nc.request(subject, data ?? new Uint8Array(), { timeout: 2_000 }).then((m) => m.string());
      expect(await ask(SUBJECTS.renderStart(firstJob))).toBe('go');
      const finished = RenderFinished.fromPartial({ job_id: 'job-first', account_id: 'acct-1', status: 'succeeded', result: { object_name: '', content_type: 'image/png', extension: 'png', size: 1 } });
      expect(await ask(SUBJECTS.renderHandOver(firstJob), RenderHandOver.encode({ finished, body: Buffer.from([1]) }).finish())).toBe('taken');
      expect([...(await first).body!]).toEqual([1]);
      // A job this edge never waited for is shed, its result refused.
      expect(await ask(SUBJECTS.renderStart({ job_id: 'job-unknown', caller_subject: queue.callerSubject }))).toBe('shed');
    });
  });

  describe('When its caller goes away before a renderer started it', () => {
    it('should end the wait at once and shed the job: a renderer asking to start it is told no', async () => {
      const js = jetstream(bus.nc);
      const queue = natsRenderQueue(bus.nc, await openRenderJobPublisher(bus.nc, js));
      const gone = new AbortController();
      const waiting = queue.submitAndWait(jobOf('job-gone-early'), { startWithinMs: 30_000, waitMs: 30_000, signal: gone.signal });
      await new Promise((r) => setTimeout(r, 200));
      gone.abort();
      await expect(waiting).rejects.toBeInstanceOf(RenderAbandoned);
      expect(await askToStart('job-gone-early')).toBe('shed');
    });
  });

  describe('When its caller goes away after the render started', () => {
    it('should end the wait at once and hand the late outcome to discard (its result is removed)', async () => {
      const js = jetstream(bus.nc);
      const queue = natsRenderQueue(bus.nc, await openRenderJobPublisher(bus.nc, js));
      const gone = new AbortController();
      const discarded: RenderFinished[] = [];
      const waiting = queue.submitAndWait(jobOf('job-gone-late'), { startWithinMs: 30_000, waitMs: 30_000, signal: gone.signal, discard: (f) => discarded.push(f) });
      expect(await askToStart('job-gone-late')).toBe('go');
      gone.abort();
      await expect(waiting).rejects.toBeInstanceOf(RenderAbandoned);
      // Nobody takes the result any more: the renderer stores it and announces it.
      expect(await handOver('job-gone-late', new Uint8Array([1]))).toBe('refused');
      const late = RenderFinished.fromPartial({ job_id: 'job-gone-late', account_id: 'acct-1', status: 'succeeded' });
      bus.nc.publish(SUBJECTS.renderFinishedCall({ job_id: 'job-gone-late', caller_subject: queue.callerSubject }), RenderFinished.encode(late).finish());
      await bus.nc.flush();
      await new Promise((r) => setTimeout(r, 200));
      expect(discarded.map((f) => f.job_id)).toEqual(['job-gone-late']);
    });
  });

  describe('When the bus is judged down while it waits', () => {
    it('should answer 503 service_unavailable at once, not at the end of the wait', async () => {
      const js = jetstream(bus.nc);
      const judge = busJudge();
      const queue = natsRenderQueue(bus.nc, await openRenderJobPublisher(bus.nc, js), judge.status);
      const waiting = queue.submitAndWait(jobOf('job-bus-down'), { startWithinMs: 30_000, waitMs: 30_000 });
      await new Promise((r) => setTimeout(r, 200));
      judge.down();
      await expect(waiting).rejects.toMatchObject({ code: 'service_unavailable' });
      expect(judge.watched()).toBe(false);
    });
  });

  describe("When the bus is judged down while the job's publish is unanswered (the server stopped answering)", () => {
    it("should answer 503 service_unavailable at once, not at the publish's deadline", async () => {
      const hung = await startTestBus('render-queue-hung');
      const server = hung.servers[0]!.process!;
      try {
        const judge = busJudge();
        const queue = natsRenderQueue(hung.nc, await openRenderJobPublisher(hung.nc, jetstream(hung.nc)), judge.status);
        server.kill('SIGSTOP');
        const startedAt = Date.now();
        const waiting = queue.submitAndWait(jobOf('job-publish-hung'), { startWithinMs: 30_000, waitMs: 30_000 });
        await new Promise((r) => setTimeout(r, 200));
        judge.down();
        await expect(waiting).rejects.toMatchObject({ code: 'service_unavailable' });
        // The publish alone would hold it about 10 s (waiting for its acknowledgement, then retrying).
        expect(Date.now() - startedAt).toBeLessThan(2_000);
        expect(judge.watched()).toBe(false);
      } finally {
        server.kill('SIGCONT');
        await hung.stop();
      }
    });
  });
});
