import { AppError } from '@app/errors';
import { BUCKETS, Objm, SUBJECTS, traceHeaders, whileBusUnavailable, type MsgHdrs, type NatsConnection, type ObjectStore, type StreamPublish } from '@app/messaging';
import { RenderJob, RenderParams } from '@app/proto/render';

/**
 * A job whose encoded size is above this travels with its parameters by reference. Far below the
 * server's max_payload (1 MiB by default), so the trace headers and the rest always fit; only a big
 * `html` (up to 5,000,000 characters) or many long headers and cookies get there.
 */
export const INLINE_JOB_MAX_BYTES = 256 * 1024;

/**
 * A render job as it travels: encoded, its large parameters already stored by reference, and the trace
 * context it was made in (a job published later, at a run's due instant, belongs to the trace of its
 * run's preparation, not to whatever is active when it goes out).
 */
export interface EncodedRenderJob {
  jobId: string;
  data: Uint8Array;
  headers: MsgHdrs;
}

/** Publishes render jobs on the RENDER_JOBS work queue. */
export interface RenderJobPublisher {
  publish(job: RenderJob): Promise<void>;
  /** The job made ready to travel, ahead of its publication (a scheduled run prepared before its due instant). */
  encode(job: RenderJob): Promise<EncodedRenderJob>;
  publishEncoded(job: EncodedRenderJob): Promise<void>;
}

/**
 * Render jobs to the work queue, deduplicated by job id. Parameters too large for a message are first
 * stored in the render-inputs object store under the job id and named in the job (`params_ref`); the
 * renderer reads them and removes them once the job is done (the bucket's TTL is the backstop for a
 * job that never runs, or one encoded and never published). `js` is a JetStream client, or a
 * `streamPublisher` where jobs come in bursts.
 */
export function renderJobPublisher(
  js: StreamPublish,
  inputs: ObjectStore,
  opts: { inlineMaxBytes?: number; retryForMs?: number } = {},
): RenderJobPublisher {
  const inlineMaxBytes = opts.inlineMaxBytes ?? INLINE_JOB_MAX_BYTES;
  const retryForMs = opts.retryForMs ?? 10_000;
  async function encode(job: RenderJob): Promise<EncodedRenderJob> {
    const headers = traceHeaders();
    const data = RenderJob.encode(job).finish();
    if (data.byteLength <= inlineMaxBytes) return { jobId: job.job_id, data, headers };
    await inputs.putBlob({ name: job.job_id }, RenderParams.encode(job.params ?? RenderParams.create()).finish());
    return { jobId: job.job_id, data: RenderJob.encode({ ...job, params: undefined, params_ref: job.job_id }).finish(), headers };
  }
  // A failed publish leaves the stored parameters to the bucket's TTL: the message may still have
  // reached the stream, and its render needs them. While the stream elects its leader the publish is
  // repeated (the job id deduplicates it), so a timed-out publish that did reach the stream is known as
  // published instead of answered as failed while its job renders, and is charged, anyway.
  const publishEncoded = async ({ jobId, data, headers }: EncodedRenderJob) => {
    await whileBusUnavailable(() => js.publish(SUBJECTS.renderJobRequested, data, { msgID: jobId, headers }), retryForMs);
  };
  return {
    encode,
    publishEncoded,
    publish: async (job) => publishEncoded(await encode(job)),
  };
}

/** The renderer's side of parameters that travel by reference. */
export interface RenderJobInputs {
  /** The job with its parameters in hand (read from the store when the job names them). */
  resolve(job: RenderJob): Promise<RenderJob>;
  /** Removes the stored parameters of a job that is done with (no-op for inline ones). */
  release(job: RenderJob): Promise<void>;
}

export function renderJobInputs(inputs: ObjectStore): RenderJobInputs {
  return {
    async resolve(job) {
      if (!job.params_ref) return job;
      const stored = await inputs.getBlob(job.params_ref);
      if (!stored) throw new AppError('render_failed', 'The render parameters are no longer available.');
      return { ...job, params: RenderParams.decode(stored) };
    },
    async release(job) {
      if (job.params_ref) await inputs.delete(job.params_ref);
    },
  };
}

/** A service's render-job publisher: `js` (a JetStream client, or a `streamPublisher`) over `nc`'s render-inputs bucket. */
export async function openRenderJobPublisher(nc: NatsConnection, js: StreamPublish): Promise<RenderJobPublisher> {
  return renderJobPublisher(js, await new Objm(nc).open(BUCKETS.renderInputs.name));
}
