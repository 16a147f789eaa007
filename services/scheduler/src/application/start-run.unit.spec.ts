import { describe, expect, it } from 'vitest';
import { AppError, errors } from '@app/errors';
import type { RenderJob } from '@app/proto/render';
import type { ActiveTask, TaskDefinition, TaskEvent } from '../domain/task/task.js';
import { controlledClock } from '../testing/controlled-clock.js';
import { memoryTaskStreams } from '../testing/memory-task-streams.js';
import { recordingAuthQuota } from '../testing/recording-auth-quota.js';
import { REPUBLISH_WINDOW_MS, runStarter } from './start-run.js';
import type { TargetGuard } from './ports.js';

const DUE = Date.parse('2026-05-01T10:01:00Z');
const RUN = `3-${DUE / 1000}`;
const definition: TaskDefinition = {
  name: 'n',
  api: 'scrape',
  query: 'url=https%3A%2F%2Fexample.com%2Fx&format=md',
  frequency: 'every_minute',
  crontab: '* * * * *',
  timezone: 'Etc/UTC',
};
const created: TaskEvent = { type: 'TaskCreated', data: { taskId: 3, accountId: 'acc', definition, enabled: true, createdAt: DUE - 30_000 } };
const started: TaskEvent = { type: 'TaskRunStarted', data: { taskId: 3, runId: RUN, dueAt: DUE, startedAt: DUE + 100 } };
const FIRST = { isLast: false };
/** The SSRF policy refusing every page. */
const refusingGuard: TargetGuard = {
  check: async (_url, parameter) => Promise.reject(errors.targetNotAllowed(parameter, 'the URL must point to a public internet address')),
  checkWebhook: async () => undefined,
};

function setup(history: TaskEvent[] = [created, started], guard: TargetGuard = { check: async () => undefined, checkWebhook: async () => undefined }) {
  const streams = memoryTaskStreams({ 3: history });
  const auth = recordingAuthQuota();
  const published: RenderJob[] = [];
  const withoutJob: string[] = [];
  const clock = controlledClock(DUE + 300);
  let n = 0;
  const { atDueTime: dispatch, onRequest, toConfirm } = runStarter({
    streams: streams.port,
    authQuota: auth.port,
    jobs: {
      publish: async (job) => void published.push(job),
      prepare: async (job) => ({ publish: async () => void published.push(job) }),
      withoutJob: async (e) => void withoutJob.push(e.reservationId) },
    guard,
    clock,
    newId: () => `job-${++n}`,
    newFileName: () => `file-${n}`,
  });
  return { dispatch, onRequest, toConfirm, streams, auth, published, withoutJob, clock };
}

const types = (events: TaskEvent[]) => events.map((e) => e.type);

describe('Run start at its due time', () => {
  describe('When a started run is dispatched', () => {
    it('should admit it, record it, then publish its job with the validated parameters', async () => {
      const { dispatch, streams, auth, published } = setup();
      expect(await dispatch({ taskId: 3, runId: RUN }, FIRST)).toEqual({ kind: 'ack' });
      expect(auth.admitted).toEqual([{ accountId: 'acc', features: ['tasks'], reservationId: 'res-1' }]);
      expect(streams.events(3).at(-1)).toEqual({
        type: 'TaskRunDispatched',
        data: { taskId: 3, runId: RUN, jobId: 'job-1', fileName: 'file-1', reservationId: 'res-1', dispatchedAt: DUE + 300 },
      });
      expect(published).toHaveLength(1);
      expect(published[0]).toMatchObject({
        job_id: 'job-1',
        operation: 'scrape',
        origin: 'task',
        task_id: '3',
        run_id: RUN,
        params: { url: 'https://example.com/x', format: 'md' },
        placement: { object_name: 'file-1' },
      });
    });
  });

  describe('When the message comes back after the job was recorded (a crash before publishing)', () => {
    it('should publish the same job again while the queue still deduplicates it, and nothing later', async () => {
      const { dispatch, auth, published, clock } = setup();
      await dispatch({ taskId: 3, runId: RUN }, FIRST);
      await dispatch({ taskId: 3, runId: RUN }, FIRST);
      expect(published.map((j) => [j.job_id, j.placement?.object_name])).toEqual([
        ['job-1', 'file-1'],
        ['job-1', 'file-1'],
      ]);
      clock.advance(REPUBLISH_WINDOW_MS + 1);
      await dispatch({ taskId: 3, runId: RUN }, FIRST);
      expect(published).toHaveLength(2);
      expect(auth.admitted).toHaveLength(1);
    });
  });

  describe('When the task was deleted after the run started', () => {
    it('should admit nothing and publish nothing', async () => {
      const deleted: TaskEvent = { type: 'TaskDeleted', data: { taskId: 3, deletedAt: DUE + 200 } };
      const { dispatch, auth, published } = setup([created, started, deleted]);
      expect(await dispatch({ taskId: 3, runId: RUN }, FIRST)).toEqual({ kind: 'ack' });
      expect(auth.admitted).toEqual([]);
      expect(published).toEqual([]);
    });
  });

  describe('When auth-quota refuses the run', () => {
    it('should record a failed run with its code and publish nothing', async () => {
      const { dispatch, streams, auth, published } = setup();
      auth.refuse('acc', errors.planUpgradeRequired('tasks'));
      await dispatch({ taskId: 3, runId: RUN }, FIRST);
      expect(streams.events(3).at(-1)).toMatchObject({
        type: 'TaskRunFinished',
        data: { outcome: 'failed', error: { code: 'plan_upgrade_required', message: 'tasks is available on the Scale plan only.' } },
      });
      expect(published).toEqual([]);
    });
  });

  describe('When auth-quota cannot be reached', () => {
    it('should ask for another delivery, and record the failure on the last one', async () => {
      const { dispatch, streams, auth } = setup();
      auth.refuse('acc', new AppError('service_unavailable', 'A backing service is unavailable; retry shortly.'));
      expect(await dispatch({ taskId: 3, runId: RUN }, FIRST)).toEqual({ kind: 'nak', delayMs: 1_000 });
      expect(types(streams.events(3))).toEqual(['TaskCreated', 'TaskRunStarted']);
      expect(await dispatch({ taskId: 3, runId: RUN }, { isLast: true })).toEqual({ kind: 'ack' });
      expect(streams.events(3).at(-1)).toMatchObject({ type: 'TaskRunFinished', data: { error: { code: 'service_unavailable' } } });
    });
  });

  describe('When the account is at its rate limit', () => {
    it('should wait out the window (Retry-After) while deliveries remain, and record the failure on the last one', async () => {
      const { dispatch, streams, auth, published } = setup();
      auth.refuse('acc', new AppError('rate_limited', 'Too many requests.', { retryAfterSeconds: 30 }));
      expect(await dispatch({ taskId: 3, runId: RUN }, FIRST)).toEqual({ kind: 'nak', delayMs: 30_000 });
      expect(types(streams.events(3))).toEqual(['TaskCreated', 'TaskRunStarted']);
      expect(await dispatch({ taskId: 3, runId: RUN }, { isLast: true })).toEqual({ kind: 'ack' });
      expect(streams.events(3).at(-1)).toMatchObject({ type: 'TaskRunFinished', data: { outcome: 'failed', error: { code: 'rate_limited' } } });
      expect(published).toEqual([]);
    });
  });

  describe('When the page is not allowed by the SSRF policy', () => {
    it('should record a failed run without reserving quota', async () => {
      const { dispatch, streams, auth, published } = setup([created, started], refusingGuard);
      await dispatch({ taskId: 3, runId: RUN }, FIRST);
      expect(streams.events(3).at(-1)).toMatchObject({ type: 'TaskRunFinished', data: { error: { code: 'target_not_allowed' } } });
      expect(auth.admitted).toEqual([]);
      expect(published).toEqual([]);
    });
  });

  describe('When the run already finished', () => {
    it('should do nothing', async () => {
      const done: TaskEvent = { type: 'TaskRunFinished', data: { taskId: 3, runId: RUN, outcome: 'failed', finishedAt: DUE + 200, error: { code: 'x', message: 'y' } } };
      const { dispatch, auth, published } = setup([created, started, done]);
      await dispatch({ taskId: 3, runId: RUN }, FIRST);
      expect(auth.admitted).toEqual([]);
      expect(published).toEqual([]);
    });
  });
});

describe('A run asked for now by its owner', () => {
  const NOW = DUE + 300;

  describe('When the owner asks for a run of an enabled task', () => {
    it('should admit it, record a manual run that claims no occurrence, and publish its job before answering', async () => {
      const { onRequest, streams, auth, published } = setup([created]);
      expect(await onRequest({ accountId: 'acc', taskId: 3 })).toBe(`3-now-${NOW}-job1`);
      expect(auth.admitted).toEqual([{ accountId: 'acc', features: ['tasks'], reservationId: 'res-1' }]);
      expect(streams.events(3).at(-1)).toEqual({
        type: 'TaskRunStarted',
        data: { taskId: 3, runId: `3-now-${NOW}-job1`, dueAt: NOW, startedAt: NOW, jobId: 'job-1', fileName: 'file-1', reservationId: 'res-1', trigger: 'manual' },
      });
      expect((await streams.port.load(3)).state).toMatchObject({ lastDueAt: null, runs: 1 });
      expect(published).toHaveLength(1);
      expect(published[0]).toMatchObject({ job_id: 'job-1', origin: 'task', task_id: '3', run_id: `3-now-${NOW}-job1`, reservation_id: 'res-1' });
    });
  });

  describe('When the owner asks twice in the same millisecond', () => {
    it('should start two runs, each with its own id and job', async () => {
      const { onRequest, streams, published } = setup([created]);
      const ids = await Promise.all([onRequest({ accountId: 'acc', taskId: 3 }), onRequest({ accountId: 'acc', taskId: 3 })]);
      expect(new Set(ids).size).toBe(2);
      const started = streams.events(3).filter((e) => e.type === 'TaskRunStarted');
      expect(started.map((e) => (e.data as { runId: string }).runId).sort()).toEqual([...ids].sort());
      expect(new Set(published.map((j) => j.run_id))).toEqual(new Set(ids));
    });
  });

  describe('When the query names a webhook_url', () => {
    const hooked = (monitor?: TaskDefinition['monitor']): TaskEvent => ({
      ...created,
      data: { ...created.data, definition: { ...definition, query: `${definition.query}&webhook_url=https%3A%2F%2Fhooks.example.com%2Fx`, ...(monitor ? { monitor } : {}) } },
    } as TaskEvent);

    it('should give the render job the webhook of a plain task (each run sends the render webhook)', async () => {
      const { onRequest, published } = setup([hooked()]);
      await onRequest({ accountId: 'acc', taskId: 3 });
      expect(published[0]!.params).toMatchObject({ webhook_url: 'https://hooks.example.com/x' });
    });

    it("should give a monitoring task's render job none: its webhook announces changes only", async () => {
      const { onRequest, published } = setup([hooked({ mode: 'text', threshold: 1, ignoreSelectors: [], ignoreText: [], confirm: true })]);
      await onRequest({ accountId: 'acc', taskId: 3 });
      expect(published[0]!.params.webhook_url).toBeUndefined();
      expect(published[0]!.params).toMatchObject({ url: 'https://example.com/x' });
    });
  });

  describe('When the task is disabled', () => {
    it('should still run it: the owner asked for this one run', async () => {
      const disabled: TaskEvent = { type: 'TaskDisabled', data: { taskId: 3, disabledAt: DUE - 10_000 } };
      const { onRequest, published } = setup([created, disabled]);
      await onRequest({ accountId: 'acc', taskId: 3 });
      expect(published).toHaveLength(1);
    });
  });

  describe('When another account asks, or the task was deleted', () => {
    it('should answer task_not_found, admitting and recording nothing', async () => {
      const deleted: TaskEvent = { type: 'TaskDeleted', data: { taskId: 3, deletedAt: DUE } };
      for (const [history, accountId] of [[[created], 'someone-else'], [[created, deleted], 'acc']] as const) {
        const { onRequest, streams, auth, published } = setup([...history]);
        await expect(onRequest({ accountId, taskId: 3 })).rejects.toMatchObject({ code: 'task_not_found' });
        expect([auth.admitted, published, streams.events(3).length]).toEqual([[], [], history.length]);
      }
    });
  });

  describe('When auth-quota refuses it', () => {
    it('should throw the refusal to the caller and record nothing', async () => {
      const { onRequest, streams, auth, published } = setup([created]);
      auth.refuse('acc', errors.quotaExceeded());
      await expect(onRequest({ accountId: 'acc', taskId: 3 })).rejects.toMatchObject({ code: 'quota_exceeded' });
      expect(types(streams.events(3))).toEqual(['TaskCreated']);
      expect(published).toEqual([]);
    });
  });

  describe('When the page is not allowed by the SSRF policy', () => {
    it('should answer target_not_allowed naming query.url, without reserving quota', async () => {
      const { onRequest, streams, auth } = setup([created], refusingGuard);
      await expect(onRequest({ accountId: 'acc', taskId: 3 })).rejects.toMatchObject({ code: 'target_not_allowed', message: expect.stringContaining('query.url') });
      expect([auth.admitted, types(streams.events(3))]).toEqual([[], ['TaskCreated']]);
    });
  });

  describe('When its job cannot be published', () => {
    it('should fail the run at once and release its reservation', async () => {
      const { onRequest, streams, withoutJob, published } = setup([created]);
      published.push = () => {
        throw new Error('no responders');
      };
      await expect(onRequest({ accountId: 'acc', taskId: 3 })).rejects.toThrow('no responders');
      expect(streams.events(3).at(-1)).toMatchObject({ type: 'TaskRunFinished', data: { runId: `3-now-${NOW}-job1`, outcome: 'failed' } });
      expect(withoutJob).toEqual(['res-1']);
    });
  });
});

describe('Run start to confirm a suspected change', () => {
  const monitor = { mode: 'text' as const, threshold: 1, ignoreSelectors: ['.ad'], ignoreText: [], confirm: true };
  const monitored: TaskEvent = { ...created, data: { ...created.data, definition: { ...definition, monitor } } } as TaskEvent;
  const finished: TaskEvent[] = [
    started,
    { type: 'TaskRunDispatched', data: { taskId: 3, runId: RUN, jobId: 'job-0', fileName: 'file-0', dispatchedAt: DUE + 100 } },
    { type: 'TaskRunFinished', data: { taskId: 3, runId: RUN, outcome: 'succeeded', file: 'file-0', finishedAt: DUE + 200 } },
  ];
  const loaded = async (streams: ReturnType<typeof setup>['streams']) => (await streams.port.load(3)).state as ActiveTask;

  describe('When the comparison asks for a confirming render', () => {
    it('should admit it, record it as confirming, and publish its job with the parameters of every trigger', async () => {
      const { toConfirm, streams, auth, published } = setup([monitored, ...finished]);
      expect(await toConfirm({ task: await loaded(streams), runId: RUN, score: 12 })).toBe(true);
      expect(auth.admitted).toEqual([{ accountId: 'acc', features: ['tasks'], reservationId: 'res-1' }]);
      expect(streams.events(3).at(-1)).toMatchObject({ type: 'TaskRunConfirming', data: { runId: RUN, jobId: 'job-1', fileName: 'file-1', reservationId: 'res-1', score: 12 } });
      expect(published).toHaveLength(1);
      expect(published[0]).toMatchObject({ job_id: 'job-1', run_id: RUN, reservation_id: 'res-1', params: { url: 'https://example.com/x', hide_selectors: ['.ad'] } });
    });

    it('should publish the same job again when asked again (a redelivery), admitting nothing more', async () => {
      const { toConfirm, streams, auth, published } = setup([monitored, ...finished]);
      await toConfirm({ task: await loaded(streams), runId: RUN, score: 12 });
      expect(await toConfirm({ task: await loaded(streams), runId: RUN, score: 12 })).toBe(true);
      expect(auth.admitted).toHaveLength(1);
      expect(published.map((j) => j.job_id)).toEqual(['job-1', 'job-1']);
    });
  });

  describe('When the page is no longer allowed by the SSRF policy', () => {
    it('should refuse the confirming render before admission: nothing reserved, recorded or published', async () => {
      const { toConfirm, streams, auth, published } = setup([monitored, ...finished], refusingGuard);
      expect(await toConfirm({ task: await loaded(streams), runId: RUN, score: 12 })).toBe(false);
      expect([auth.admitted, published]).toEqual([[], []]);
      expect(types(streams.events(3)).at(-1)).toBe('TaskRunFinished');
    });
  });
});
