import { describe, expect, it } from 'vitest';
import { RenderFinished } from '@app/proto/render';
import type { TaskDefinition, TaskEvent } from '../domain/task/task.js';
import { controlledClock } from '../testing/controlled-clock.js';
import { memoryTaskStreams } from '../testing/memory-task-streams.js';
import { finishRun } from './finish-run.js';

const DUE = Date.parse('2026-05-01T10:01:00Z');
const RUN = `3-${DUE / 1000}`;
const definition: TaskDefinition = { name: 'n', api: 'pdf', query: 'html=x', frequency: 'every_minute', crontab: '* * * * *', timezone: 'Etc/UTC' };
const history: TaskEvent[] = [
  { type: 'TaskCreated', data: { taskId: 3, accountId: 'acc', definition, enabled: true, createdAt: DUE - 30_000 } },
  { type: 'TaskRunStarted', data: { taskId: 3, runId: RUN, dueAt: DUE, startedAt: DUE + 100 } },
  { type: 'TaskRunDispatched', data: { taskId: 3, runId: RUN, jobId: 'job-1', fileName: 'file-1', reservationId: 'res-9', dispatchedAt: DUE + 300 } },
];

const outcome = (o: Partial<RenderFinished>) =>
  RenderFinished.fromPartial({ job_id: 'job-1', account_id: 'acc', operation: 'pdf', origin: 'task', task_id: '3', run_id: RUN, ...o });

function setup(events = history) {
  const streams = memoryTaskStreams({ 3: events });
  const finish = finishRun({ streams: streams.port, clock: controlledClock(DUE + 5_000) });
  return { finish, streams };
}

describe('Run outcome', () => {
  describe('When the render of a run succeeded', () => {
    it('should record the result file, once', async () => {
      const { finish, streams } = setup();
      const succeeded = outcome({ status: 'succeeded', result: { object_name: 'file-1', content_type: 'application/pdf', extension: 'pdf', size: 10, headers: {}, expires_unix_ms: 0 } });
      await finish(succeeded);
      await finish(succeeded);
      expect(streams.events(3).slice(3)).toEqual([
        { type: 'TaskRunFinished', data: { taskId: 3, runId: RUN, outcome: 'succeeded', finishedAt: DUE + 5_000, file: 'file-1' } },
      ]);
    });
  });

  describe('When the render of a run failed', () => {
    it('should record the error', async () => {
      const { finish, streams } = setup();
      await finish(outcome({ status: 'failed', error: { code: 'host_returned_error', message: 'boom' } }));
      expect(streams.events(3).at(-1)).toMatchObject({ data: { outcome: 'failed', error: { code: 'host_returned_error', message: 'boom' } } });
    });
  });

  describe('When the render is not a task run, or of another job of the run', () => {
    it('should leave everything as it is', async () => {
      const { finish, streams } = setup();
      await finish(outcome({ origin: 'api', status: 'succeeded' }));
      await finish(outcome({ job_id: 'job-other', status: 'failed' }));
      expect(streams.events(3)).toHaveLength(3);
    });
  });

  describe('When the task was deleted while the run rendered', () => {
    it('should record nothing on the deleted task', async () => {
      const { finish, streams } = setup([...history, { type: 'TaskDeleted', data: { taskId: 3, deletedAt: DUE + 400 } }]);
      await finish(outcome({ status: 'failed', error: { code: 'render_timeout', message: 't' } }));
      expect(streams.events(3)).toHaveLength(4);
    });
  });
});
