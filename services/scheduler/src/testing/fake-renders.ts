import { BUCKETS, Objm, SUBJECTS, jetstream, type NatsConnection } from '@app/messaging';
import { encodeResultMeta } from '@app/render-contracts';
import { RenderFinished, type RenderJob } from '@app/proto/render';
import { renderJobsIn } from './nats.js';

const HOUR = 3_600_000;

/**
 * The renderer's side of a task run, played by a test: the result is written to the render-results
 * object store under the job's file name with the metadata a renderer writes, then RenderFinished is
 * published on the task's subject.
 */
export async function fakeRenders(nc: NatsConnection, now: () => number) {
  const objects = await new Objm(nc).open(BUCKETS.renderResults.name);
  const js = jetstream(nc);
  const done = new Set<string>();
  return {
    /** Jobs of `taskId` not rendered yet, oldest first. */
    async pending(taskId: number): Promise<RenderJob[]> {
      return (await renderJobsIn(nc)).filter((j) => j.task_id === String(taskId) && !done.has(j.job_id));
    },
    async render(job: RenderJob, body: Uint8Array | string, type: { extension: string; contentType: string }) {
      done.add(job.job_id);
      const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
      const name = job.placement!.object_name;
      const expires = now() + 24 * HOUR;
      await objects.putBlob(
        { name, metadata: encodeResultMeta({ accountId: job.account_id, expiresUnixMs: expires, contentType: type.contentType, extension: type.extension, kind: 'file', headers: {} }) },
        bytes,
      );
      const event = RenderFinished.fromPartial({
        job_id: job.job_id,
        account_id: job.account_id,
        operation: job.operation,
        status: 'succeeded',
        started_unix_ms: now(),
        finished_unix_ms: now() + 500,
        origin: 'task',
        task_id: job.task_id,
        run_id: job.run_id,
        renderer_id: 'renderer-test',
        placement: job.placement,
        files_base_url: job.files_base_url,
        result: { object_name: name, content_type: type.contentType, extension: type.extension, size: bytes.length, headers: {}, expires_unix_ms: expires },
      });
      await js.publish(SUBJECTS.renderEvent('task', 'finished', job.job_id), RenderFinished.encode(event).finish(), { msgID: `finished:${job.job_id}` });
    },
    async fail(job: RenderJob) {
      done.add(job.job_id);
      const event = RenderFinished.fromPartial({
        job_id: job.job_id,
        account_id: job.account_id,
        operation: job.operation,
        status: 'failed',
        error: { code: 'render_timeout', message: 'The render did not finish in time.', details: [] },
        origin: 'task',
        task_id: job.task_id,
        run_id: job.run_id,
        renderer_id: 'renderer-test',
      });
      await js.publish(SUBJECTS.renderEvent('task', 'finished', job.job_id), RenderFinished.encode(event).finish(), { msgID: `finished:${job.job_id}` });
    },
    /** A file the scheduler wrote (diff, compared result). */
    async read(name: string): Promise<Uint8Array | null> {
      return objects.getBlob(name);
    },
  };
}

export type FakeRenders = Awaited<ReturnType<typeof fakeRenders>>;
