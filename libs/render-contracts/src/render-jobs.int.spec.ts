import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RenderJob, RenderParams } from '@app/proto/render';
import { shutdownTelemetry, startTelemetry, withSpan } from '@app/telemetry';
import { startTestBus, type TestBus } from '@app/testkit';
import { BUCKETS, Objm, STREAMS, ensureTopology, jetstream, jetstreamManager, streamPublisher, type ObjectStore, type StreamPublisher } from '@app/messaging';
import { renderJobInputs, renderJobPublisher, type RenderJobPublisher } from './render-jobs.js';

// Render jobs published to the RENDER_JOBS stream of a real nats-server 2.9 and read back from it, with
// the service's own telemetry running (spans not exported, their context propagated).
let bus: TestBus;
let stream: StreamPublisher;
let inputs: ObjectStore;
let publisher: RenderJobPublisher;

beforeAll(async () => {
  startTelemetry('render-jobs-test');
  bus = await startTestBus('render-jobs');
  stream = streamPublisher(bus.nc);
  inputs = await new Objm(bus.nc).open(BUCKETS.renderInputs.name);
  publisher = renderJobPublisher(stream, inputs, { inlineMaxBytes: 1_024 });
});

afterAll(async () => {
  stream?.close();
  await bus?.stop();
  await shutdownTelemetry();
});

const job = (id: string, html = '<p>hello</p>'): RenderJob =>
  RenderJob.fromPartial({ job_id: id, account_id: 'acc_1', operation: 'screenshot', params: RenderParams.fromPartial({ html }), origin: 'task' });

/** The stored message of a job, by its id (the stream deduplicates on it). */
async function stored(jobId: string) {
  const jsm = await jetstreamManager(bus.nc);
  const { state } = await jsm.streams.info(STREAMS.RENDER_JOBS.name);
  for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
    const msg = await jsm.streams.getMessage(STREAMS.RENDER_JOBS.name, { seq }).catch(() => null);
    if (msg?.header.get('Nats-Msg-Id') === jobId) return msg;
  }
  throw new Error(`no stored job ${jobId}`);
}

describe('The render-job publisher', () => {
  describe('When a job is encoded inside one trace and published later inside another', () => {
    it('should carry the trace it was encoded in', async () => {
      const encodedIn = await withSpan('prepare task run', {}, async (span) => ({ encoded: await publisher.encode(job('job-traced')), span: span.spanContext() }));
      const publishedIn = await withSpan('start prepared runs', {}, async (span) => {
        await publisher.publishEncoded(encodedIn.encoded);
        return span.spanContext();
      });
      expect(encodedIn.span.traceId).not.toBe(publishedIn.traceId);
      const msg = await stored('job-traced');
      expect(msg.header.get('traceparent')).toMatch(new RegExp(`^00-${encodedIn.span.traceId}-${encodedIn.span.spanId}-0[01]$`));
      expect(RenderJob.decode(msg.data).params?.html).toBe('<p>hello</p>');
    });
  });

  describe('When a job is published as it is made', () => {
    it('should carry the trace it was published in', async () => {
      const span = await withSpan('POST /v1/screenshot', {}, async (s) => {
        await publisher.publish(job('job-direct'));
        return s.spanContext();
      });
      expect((await stored('job-direct')).header.get('traceparent')).toContain(`-${span.traceId}-${span.spanId}-`);
    });
  });

  describe('When a job is too large to travel inline', () => {
    it('should store its parameters by reference at encoding, for the renderer to read back', async () => {
      const html = `<p>${'x'.repeat(5_000)}</p>`;
      const encoded = await publisher.encode(job('job-large', html));
      // Stored as soon as it is encoded: a run prepared ahead does it in its lead time.
      expect(await inputs.info('job-large')).not.toBeNull();
      await publisher.publishEncoded(encoded);
      const travelled = RenderJob.decode((await stored('job-large')).data);
      expect(travelled.params).toBeUndefined();
      expect(travelled.params_ref).toBe('job-large');
      expect((await renderJobInputs(inputs).resolve(travelled)).params?.html).toBe(html);
    });
  });

  describe('When the render jobs stream is not there to answer for a second', () => {
    it('should publish the job once the stream is back, stored once', async () => {
      const jsm = await jetstreamManager(bus.nc);
      await jsm.streams.delete(STREAMS.RENDER_JOBS.name);
      const publishing = renderJobPublisher(jetstream(bus.nc, { timeout: 500 }), inputs).publish(job('job-late'));
      await new Promise((r) => setTimeout(r, 1_000));
      await ensureTopology(bus.nc);
      await publishing;
      expect(RenderJob.decode((await stored('job-late')).data).job_id).toBe('job-late');
      expect((await jsm.streams.info(STREAMS.RENDER_JOBS.name)).state.messages).toBe(1);
    });
  });
});
