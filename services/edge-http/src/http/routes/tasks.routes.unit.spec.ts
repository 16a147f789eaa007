import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createLogger } from '@app/logging';
import { AppError, errors } from '@app/errors';
import type { AdmitRequest, Admitter, ReservationOutcomes } from '../../application/ports.js';
import type { RenderSync } from '../../application/render-sync.js';
import { buildServer } from '../build-server.js';
import type { TaskResource, TaskScheduler } from '../../tasks/index.js';

const SCALE_KEY = 'ak_scale';
const BASIC_KEY = 'ak_basic';

const task: TaskResource = {
  id: 12,
  name: 'Front page',
  api: 'screenshot',
  query: 'url=https://example.com',
  frequency: 'every_hour',
  crontab: '5 * * * *',
  timezone: 'Etc/UTC',
  enabled: true,
  created: 1_780_000_000,
  last_run: null,
  runs: 0,
};

// auth-quota as the routes see it: the Scale account passes, the Basic one is refused plan features.
const admitted: AdmitRequest[] = [];
const reservations: ReservationOutcomes = { ended: vi.fn(async () => undefined) };
const authQuota: Admitter = {
  // No rate lease here: every request is admitted by `admit`.
  tryNow: () => undefined,
  leasesKey: () => false,
  admit: vi.fn(async (req: AdmitRequest) => {
    admitted.push(req);
    const plan = req.accessKey === SCALE_KEY ? 'scale' : req.accessKey === BASIC_KEY ? 'basic' : undefined;
    if (!plan) throw errors.accessKeyInvalid();
    if (plan !== 'scale' && req.features.includes('tasks')) throw errors.planUpgradeRequired('tasks');
    return {
      account: { accountId: `acc_${plan}`, plan },
      rateLimit: { limit: 150, remaining: 149, resetUnix: 1_800_000_000 },
      ...(req.usage === 'task_create' ? { reservationId: 'res-1' } : {}),
    };
  }),
  reserve: vi.fn(async () => 'res-deferred'),
  endReservation: vi.fn(async () => undefined),
  usage: vi.fn(async () => ({
    hits: { quota: 0, used: 0, remaining: 0 },
    concurrency: { limit: 0, remaining: 0, reset: 0 },
    renders: { limit: 0, in_flight: 0 },
  })),
};

const scheduler = {
  create: vi.fn<TaskScheduler['create']>(async () => task),
  list: vi.fn<TaskScheduler['list']>(async () => [task]),
  get: vi.fn<TaskScheduler['get']>(async () => task),
  update: vi.fn<TaskScheduler['update']>(async (_a, _id, fields) => ({ ...task, ...fields })),
  remove: vi.fn<TaskScheduler['remove']>(async () => undefined),
  runs: vi.fn<TaskScheduler['runs']>(async () => [
    { id: '12-1780003900', task_id: 12, trigger: 'schedule', status: 'succeeded', due: 1_780_003_900, started: 1_780_003_900, finished: 1_780_003_902, file: 'Zm9v', error: null },
    { id: '12-1780000300', task_id: 12, trigger: 'schedule', status: 'failed', due: 1_780_000_300, started: 1_780_000_300, finished: 1_780_000_301, file: null, error: { code: 'quota_exceeded', message: 'used up' } },
  ]),
  run: vi.fn<TaskScheduler['run']>(async (_a, id) => {
    if (id === 13) throw errors.quotaExceeded();
    return { id: '12-now-1780004000123', task_id: 12, trigger: 'manual', status: 'running', due: 1_780_004_000, started: 1_780_004_000, finished: null, file: null, error: null };
  }),
  changes: vi.fn<TaskScheduler['changes']>(async () => [
    {
      id: '12-1780003900',
      task_id: 12,
      trigger: 'schedule',
      status: 'succeeded',
      due: 1_780_003_900,
      started: 1_780_003_900,
      finished: 1_780_003_902,
      file: 'Zm9v',
      error: null,
      change: { status: 'changed', score: 1.5, summary: 's', diff: 'ZGlm', before: 'YmVm', after: 'YWZ0', boxes: [{ x: 1, y: 2, width: 3, height: 4 }], compared: 1_780_003_903 },
    },
  ]),
  compare: vi.fn<TaskScheduler['compare']>(async (_a, _id, runs) => {
    if (runs.to === '12-1780009999') throw new AppError('run_not_found', 'not kept', { details: [{ parameter: 'to', message: 'to is not kept' }] });
    return { status: 'changed', score: 2, summary: '1 line changed', diff: 'ZGlm', before: 'YmVm', after: 'YWZ0', boxes: [], compared: 1_780_003_999 };
  }),
};

let app: FastifyInstance;
const key = { 'x-access-key': SCALE_KEY };

beforeAll(async () => {
  app = await buildServer({
    logger: createLogger('edge-http-test', { level: 'silent' }),
    bodyLimitBytes: 1024 * 1024,
    authQuota,
    reservations,
    renderSync: vi.fn<RenderSync>(),
    health: async () => ({}),
    tasks: { scheduler },
  });
});

afterAll(async () => app.close());

beforeEach(() => {
  admitted.length = 0;
  vi.clearAllMocks();
});

describe('Task routes', () => {
  describe('When a Scale account creates a task', () => {
    it('should answer 201 with the task, admitted as a task creation of the tasks feature', async () => {
      const body = { access_key: SCALE_KEY, name: 'Front page', api: 'screenshot', query: 'url=https://example.com', frequency: 'every_hour', enabled: true };
      const res = await app.inject({ method: 'POST', url: '/v1/tasks', headers: { host: 'api.test:8443' }, payload: body });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual(task);
      expect(admitted[0]).toMatchObject({ accessKey: SCALE_KEY, usage: 'task_create', features: ['tasks'] });
      expect(scheduler.create).toHaveBeenCalledWith(
        'acc_scale',
        { name: 'Front page', api: 'screenshot', query: 'url=https://example.com', frequency: 'every_hour', enabled: true },
        { filesBaseUrl: 'http://api.test:8443/v1/files/' },
      );
      // A task creation has no render job: its reservation is announced as ended, successfully (it counts).
      await vi.waitFor(() =>
        expect(reservations.ended).toHaveBeenCalledWith({ accountId: 'acc_scale', reservationId: 'res-1', succeeded: true }),
      );
    });
  });

  describe('When the account is not on the Scale plan', () => {
    it.each([
      ['POST', '/v1/tasks'],
      ['GET', '/v1/tasks'],
      ['GET', '/v1/tasks/12'],
      ['PATCH', '/v1/tasks/12'],
      ['DELETE', '/v1/tasks/12'],
      ['GET', '/v1/tasks/12/runs'],
      ['POST', '/v1/tasks/12/runs'],
    ] as const)('should answer 402 plan_upgrade_required to %s %s', async (method, url) => {
      const res = await app.inject({ method, url, headers: { 'x-access-key': BASIC_KEY }, ...(method === 'POST' || method === 'PATCH' ? { payload: {} } : {}) });
      expect(res.statusCode).toBe(402);
      expect(res.json()).toMatchObject({ statusCode: 402, error: 'Payment Required', code: 'plan_upgrade_required' });
      expect(Object.values(scheduler).every((fn) => fn.mock.calls.length === 0)).toBe(true);
    });
  });

  describe('When the body has fields of the wrong type, read-only or unknown fields', () => {
    it('should answer 400 naming every one, without calling the scheduler, and give the reservation back', async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/tasks',
        headers: key,
        payload: { name: 5, api: 'pdf', enabled: 'yes', runs: 3, colour: 'red', query: 'url=https://example.com', frequency: 'every_day' },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().details.map((d: { parameter: string }) => d.parameter).sort()).toEqual(['colour', 'enabled', 'name', 'runs']);
      expect(scheduler.create).not.toHaveBeenCalled();
      await vi.waitFor(() =>
        expect(reservations.ended).toHaveBeenCalledWith({ accountId: 'acc_scale', reservationId: 'res-1', succeeded: false }),
      );
    });
  });

  describe('When the scheduler refuses the fields', () => {
    it('should answer its 400 with the details as they came', async () => {
      scheduler.create.mockRejectedValueOnce(
        new AppError('invalid_parameter', 'api must be one of screenshot, pdf, scrape, screencast', {
          details: [{ parameter: 'api', message: 'api must be one of screenshot, pdf, scrape, screencast' }],
        }),
      );
      const res = await app.inject({ method: 'POST', url: '/v1/tasks', headers: key, payload: { name: 'x', api: 'video', query: 'url=https://a.test', frequency: 'every_hour' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'api' }] });
    });
  });

  describe('When tasks are listed and one is read', () => {
    it('should answer {tasks} and the task, admitted as reads', async () => {
      const list = await app.inject({ method: 'GET', url: `/v1/tasks?access_key=${SCALE_KEY}` });
      expect(list.statusCode).toBe(200);
      expect(list.json()).toEqual({ tasks: [task] });
      const one = await app.inject({ method: 'GET', url: '/v1/tasks/12', headers: key });
      expect(one.json()).toEqual(task);
      expect(scheduler.get).toHaveBeenCalledWith('acc_scale', 12);
      expect(admitted.map((a) => a.usage)).toEqual(['read', 'read']);
    });
  });

  describe('When the task does not exist or is not the account', () => {
    it('should answer 404 task_not_found', async () => {
      scheduler.get.mockRejectedValueOnce(new AppError('task_not_found', 'Task 99 was not found.'));
      const res = await app.inject({ method: 'GET', url: '/v1/tasks/99', headers: key });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ statusCode: 404, error: 'Not Found', message: 'Task 99 was not found.', code: 'task_not_found' });
    });

    it.each(['abc', '0', '-3', '1.5', '99999999999999999'])('should answer 404 to the id %j without asking the scheduler', async (id) => {
      const res = await app.inject({ method: 'DELETE', url: `/v1/tasks/${id}`, headers: key });
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('task_not_found');
      expect(scheduler.remove).not.toHaveBeenCalled();
    });
  });

  describe('When a task is updated', () => {
    it('should pass the subset sent (key in the body) and answer 200 with the task', async () => {
      const res = await app.inject({ method: 'PATCH', url: '/v1/tasks/12', payload: { access_key: SCALE_KEY, enabled: false, crontab: null } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ...task, enabled: false });
      expect(scheduler.update).toHaveBeenCalledWith('acc_scale', 12, { enabled: false });
      expect(admitted[0]).toMatchObject({ usage: 'task_other', features: ['tasks'] });
    });
  });

  describe('When a task is deleted with the key in the query', () => {
    it('should answer 204 with an empty body, not counted against the quota', async () => {
      const res = await app.inject({ method: 'DELETE', url: `/v1/tasks/12?access_key=${SCALE_KEY}` });
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
      expect(scheduler.remove).toHaveBeenCalledWith('acc_scale', 12);
      expect(admitted[0]).toMatchObject({ usage: 'task_other' });
    });
  });

  describe('When the body has a monitor of the wrong shape', () => {
    it.each([
      [{ mode: 'visual', threshold: 'high' }, 'monitor'],
      ['visual', 'monitor'],
      [{ mode: 'text', ignore_text: 'a|b' }, 'monitor'],
    ])('should answer 400 naming %s', async (monitor, parameter) => {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/tasks',
        headers: key,
        payload: { name: 'x', api: 'scrape', query: 'url=https://example.com', frequency: 'every_day', monitor },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().details.map((d: { parameter: string }) => d.parameter)).toEqual([parameter]);
      expect(scheduler.create).not.toHaveBeenCalled();
    });

    it('should pass a PATCH with monitor null on as a monitor to clear', async () => {
      const res = await app.inject({ method: 'PATCH', url: '/v1/tasks/12', headers: key, payload: { monitor: null } });
      expect(res.statusCode).toBe(200);
      expect(scheduler.update).toHaveBeenCalledWith('acc_scale', 12, { monitor: null });
    });
  });

  describe('When the changes of a task are listed', () => {
    it('should give the changed runs with the result, before, after and diff as file URLs', async () => {
      const res = await app.inject({ method: 'GET', url: '/v1/tasks/12/changes', headers: { ...key, host: 'render.example:8443' } });
      expect(res.statusCode).toBe(200);
      const files = 'http://render.example:8443/v1/files/';
      expect(res.json().changes).toEqual([
        expect.objectContaining({
          file: `${files}Zm9v`,
          change: { status: 'changed', score: 1.5, summary: 's', diff: `${files}ZGlm`, before: `${files}YmVm`, after: `${files}YWZ0`, boxes: [{ x: 1, y: 2, width: 3, height: 4 }], compared: 1_780_003_903 },
        }),
      ]);
      expect(scheduler.changes).toHaveBeenCalledWith('acc_scale', 12);
    });
  });

  describe('When two runs of a task are compared', () => {
    it('should answer the comparison with its files as URLs, asking the scheduler for the two runs', async () => {
      const res = await app.inject({ method: 'GET', url: '/v1/tasks/12/compare?from=12-1780000300&to=12-now-1780004000123-ab12CD34', headers: { ...key, host: 'render.example:8443' } });
      expect(res.statusCode).toBe(200);
      const files = 'http://render.example:8443/v1/files/';
      expect(res.json()).toEqual({ status: 'changed', score: 2, summary: '1 line changed', diff: `${files}ZGlm`, before: `${files}YmVm`, after: `${files}YWZ0`, boxes: [], compared: 1_780_003_999 });
      expect(scheduler.compare).toHaveBeenCalledWith('acc_scale', 12, { from: '12-1780000300', to: '12-now-1780004000123-ab12CD34' });
    });

    it.each([
      ['', ['from', 'to']],
      ['?from=12-1780000300', ['to']],
      ['?from=../etc&to=12-1780000300', ['from']],
      ['?from=12-1&from=12-2&to=12-1780000300', ['from']],
    ])('should answer 400 naming each bad run id (query %s) before the scheduler hears of it', async (query, named) => {
      const res = await app.inject({ method: 'GET', url: `/v1/tasks/12/compare${query}`, headers: key });
      expect(res.statusCode).toBe(400);
      expect(res.json().details.map((d: { parameter: string }) => d.parameter)).toEqual(named);
      expect(scheduler.compare).not.toHaveBeenCalled();
    });

    it('should answer 404 run_not_found naming the run that is not kept', async () => {
      const res = await app.inject({ method: 'GET', url: '/v1/tasks/12/compare?from=12-1780000300&to=12-1780009999', headers: key });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ code: 'run_not_found', details: [{ parameter: 'to' }] });
    });
  });

  describe('When the runs of a task are listed', () => {
    it('should turn result names into file URLs on the origin of the request', async () => {
      const res = await app.inject({ method: 'GET', url: '/v1/tasks/12/runs', headers: { ...key, host: 'render.example:8443' } });
      expect(res.statusCode).toBe(200);
      expect(res.json().runs.map((r: { file: string | null }) => r.file)).toEqual(['http://render.example:8443/v1/files/Zm9v', null]);
      expect(res.json().runs[1]).toMatchObject({ status: 'failed', error: { code: 'quota_exceeded' } });
    });
  });

  describe('When a run is asked for now', () => {
    it('should answer 202 with the running run, admitted as a task request of the tasks feature (its render is charged as a run)', async () => {
      const res = await app.inject({ method: 'POST', url: '/v1/tasks/12/runs', headers: { ...key, host: 'render.example:8443' } });
      expect(res.statusCode).toBe(202);
      expect(res.json()).toMatchObject({ id: '12-now-1780004000123', task_id: 12, trigger: 'manual', status: 'running', file: null });
      expect(scheduler.run).toHaveBeenCalledWith('acc_scale', 12);
      expect(admitted[0]).toMatchObject({ usage: 'task_other', features: ['tasks'] });
    });

    it("should answer the scheduler's refusal as the API's error (the account's quota is used up: 423)", async () => {
      const res = await app.inject({ method: 'POST', url: '/v1/tasks/13/runs', headers: key });
      expect(res.json()).toMatchObject({ code: 'quota_exceeded' });
      expect(res.statusCode).toBe(423);
    });
  });
});
