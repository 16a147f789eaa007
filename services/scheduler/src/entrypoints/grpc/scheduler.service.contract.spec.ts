import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { status } from '@grpc/grpc-js';
import { isAppError, type AppError } from '@app/errors';
import { controlledClock } from '../../testing/controlled-clock.js';
import { recordingAuthQuota } from '../../testing/recording-auth-quota.js';
import { startSchedulerHarness, type Replica, type SchedulerHarness } from '../../testing/scheduler-harness.js';

// The generated gRPC client against two real scheduler replicas on port 0 (shared SQLite file, real NATS),
// with the production SSRF policy (no private targets).

const T0 = Date.parse('2026-04-10T07:21:42Z');
const PUBLIC_PAGE = 'url=http://93.184.215.14/page';
let harness: SchedulerHarness;
let a: Replica;
let b: Replica;
const clock = controlledClock(T0);

beforeAll(async () => {
  harness = await startSchedulerHarness({ ALLOW_PRIVATE_TARGETS: '0' });
  const auth = recordingAuthQuota();
  a = await harness.replica({ clock, authQuota: auth.port });
  b = await harness.replica({ clock, authQuota: auth.port });
});

afterAll(async () => {
  await harness?.stop();
});

async function errorOf(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (isAppError(err)) return err;
    throw err;
  }
  throw new Error('the call succeeded');
}

describe('SchedulerService over gRPC', () => {
  describe('When a task is created with the required fields only', () => {
    it('should answer every field of the spec, with the defaults and a derived crontab', async () => {
      const task = await a.create({ name: 'Docs', api: 'pdf', query: PUBLIC_PAGE, frequency: 'every_day' });
      expect(task).toEqual({
        id: expect.any(Number),
        name: 'Docs',
        api: 'pdf',
        query: PUBLIC_PAGE,
        frequency: 'every_day',
        crontab: '21 7 * * *',
        timezone: 'Etc/UTC',
        enabled: true,
        created: Math.floor(T0 / 1000),
        last_run: undefined,
        runs: 0,
        keep_session: false,
      });
      expect(Number.isSafeInteger(task.id) && task.id > 0).toBe(true);
      expect(await b.get(task.id)).toEqual(task); // read-your-writes on the other replica
    });
  });

  describe('When the fields break several rules', () => {
    it('should answer INVALID_ARGUMENT naming every bad field', async () => {
      const err = await errorOf(a.create({ name: 'x'.repeat(101), api: 'video', query: PUBLIC_PAGE, frequency: 'every_hour', crontab: '* * * * *' }));
      expect(err.code).toBe('invalid_parameter');
      expect(err.grpcStatus).toBe(status.INVALID_ARGUMENT);
      expect(err.details?.map((d) => d.parameter).sort()).toEqual(['api', 'crontab', 'name']);
    });
  });

  describe('When the query targets a private address', () => {
    it('should refuse the task as one that could never run', async () => {
      const err = await errorOf(a.create({ name: 'intranet', api: 'screenshot', query: 'url=http://127.0.0.1:8080/', frequency: 'every_hour' }));
      expect(err.code).toBe('target_not_allowed');
      expect(err.details).toEqual([{ parameter: 'query.url', message: 'the URL must point to a public internet address' }]);
    });
  });

  describe('When the query names a proxy on a loopback address', () => {
    it('should refuse the task as the API call refuses that proxy, naming it inside the query', async () => {
      const err = await errorOf(a.create({ name: 'proxied', api: 'screenshot', query: `${PUBLIC_PAGE}&proxy=http://u:p@127.0.0.1:3128`, frequency: 'every_hour' }));
      expect(err.code).toBe('target_not_allowed');
      expect(err.details).toEqual([{ parameter: 'query.proxy', message: 'the URL must point to a public internet address' }]);
    });
  });

  describe('When the query asks for a webhook the SSRF policy refuses', () => {
    it('should refuse the task, naming the webhook inside the query', async () => {
      const err = await errorOf(
        a.create({ name: 'hook', api: 'screenshot', query: `${PUBLIC_PAGE}&async=true&webhook_url=http://93.184.215.14/hook`, frequency: 'every_hour' }),
      );
      expect(err.code).toBe('target_not_allowed');
      expect(err.details).toEqual([{ parameter: 'query.webhook_url', message: 'the URL scheme must be one of https' }]);
    });
  });

  describe('When another account asks for the task', () => {
    it('should answer task_not_found to every call, as for a task that does not exist', async () => {
      const task = await a.create({ name: 'Mine', api: 'scrape', query: PUBLIC_PAGE, frequency: 'every_minute' });
      const codes = await Promise.all([
        errorOf(b.get(task.id, 'acc_other')),
        errorOf(b.update({ id: task.id, name: 'Stolen', account_id: 'acc_other' })),
        errorOf(b.remove(task.id, 'acc_other')),
        errorOf(b.runs(task.id, 'acc_other')),
        errorOf(b.get(999_999)),
      ]);
      expect(codes.map((e) => [e.code, e.grpcStatus])).toEqual(Array(5).fill(['task_not_found', status.NOT_FOUND]));
      expect(codes[0]!.message).toBe(`Task ${task.id} was not found.`);
      expect((await b.list('acc_other')).map((t) => t.id)).not.toContain(task.id);
      expect((await b.get(task.id)).name).toBe('Mine');
    });
  });

  describe('When a task is updated with a subset of its fields', () => {
    it('should change those, re-derive the crontab, and answer the whole task', async () => {
      const task = await a.create({ name: 'Hourly', api: 'screenshot', query: PUBLIC_PAGE, frequency: 'every_hour' });
      const updated = await b.update({ id: task.id, name: 'Daily in Tokyo', frequency: 'every_day', timezone: 'Asia/Tokyo', enabled: false });
      expect(updated).toEqual({ ...task, name: 'Daily in Tokyo', frequency: 'every_day', crontab: '21 16 * * *', timezone: 'Asia/Tokyo', enabled: false });
      const custom = await a.update({ id: task.id, frequency: 'custom', crontab: '0 9 * * 1-5' });
      expect(custom).toMatchObject({ frequency: 'custom', crontab: '0 9 * * 1-5', enabled: false });
      expect((await errorOf(a.update({ id: task.id, api: 'pdf', query: 'url=http://93.184.215.14/&format=png' }))).details).toEqual([
        { parameter: 'query.format', message: expect.stringContaining('format') },
      ]);
    });
  });

  describe('When a task is deleted', () => {
    it('should answer task_not_found afterwards, on every replica', async () => {
      const task = await a.create({ name: 'Gone', api: 'screenshot', query: PUBLIC_PAGE, frequency: 'every_hour' });
      await b.remove(task.id);
      expect((await errorOf(a.get(task.id))).code).toBe('task_not_found');
      expect((await errorOf(a.remove(task.id))).code).toBe('task_not_found');
      expect((await a.list()).map((t) => t.id)).not.toContain(task.id);
    });
  });

  describe('When both replicas create tasks at the same time', () => {
    it('should give every task its own positive integer id', async () => {
      const created = await Promise.all(
        Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).create({ name: `t${i}`, api: 'screenshot', query: PUBLIC_PAGE, frequency: 'every_hour' })),
      );
      const ids = created.map((t) => t.id);
      expect(new Set(ids).size).toBe(30);
      expect(ids.every((id) => Number.isSafeInteger(id) && id > 0)).toBe(true);
      const listed = (await a.list()).map((t) => t.id);
      expect(listed).toEqual([...listed].sort((x, y) => x - y));
      expect(listed).toEqual(expect.arrayContaining(ids));
    });
  });

  describe('When the caller names no account', () => {
    it('should refuse the call', async () => {
      expect((await errorOf(a.list(''))).code).toBe('invalid_parameter');
    });
  });
});
