import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountsAdmin,
  httpsRequest,
  imageInfo,
  recordFinishedRenders,
  startFixtureServer,
  startTestStack,
  startWebhookReceiver,
  until,
  type FixtureServer,
  type TestAccount,
  type TestStack,
} from '@app/testkit';
import type { TaskResource, TaskRunResource } from '@app/task-resources';

// Scheduled tasks through the HTTPS API of the whole stack (scheduler, renderer, auth-quota, edge as
// separate processes on one NATS). Runs fire at minute boundaries, so the test waits up to ~70 s once.

let stack: TestStack;
let fixture: FixtureServer;
let finished: Awaited<ReturnType<typeof recordFinishedRenders>>;
let admin: ReturnType<typeof accountsAdmin>;
let otherScale: TestAccount;
let basic: TestAccount;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/task-a': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<title>A</title><h1>Task A</h1>'),
    '/task-b': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<title>B</title><h1>Task B</h1>'),
    '/task-now': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Now</title><h1>Asked for now</h1>'),
  });
  stack = await startTestStack({ env: { ALLOW_PRIVATE_TARGETS: '1' } });
  finished = await recordFinishedRenders(stack.natsUrl);
  admin = accountsAdmin(stack.authQuotaAddress);
  otherScale = await admin.create('scale', 'other');
  basic = await admin.create('basic', 'basic');
  receiver = await startWebhookReceiver({ secret: () => stack.demo.secretKey });
});

afterAll(async () => {
  admin?.close();
  await receiver?.close();
  await finished?.close();
  await stack?.stop();
  await fixture?.close();
});

const as = (accessKey: string) => ({ 'x-access-key': accessKey });
const demo = () => as(stack.demo.accessKey);
const createTask = (path: string, extra: Record<string, unknown> = {}) =>
  stack.call('POST', '/v1/tasks', {
    headers: demo(),
    // URL-encoded query, as the spec allows: the url inside it is percent-encoded.
    json: { name: `Fixture ${path}`, api: 'screenshot', query: `url=${encodeURIComponent(`${fixture.origin}${path}`)}&format=png`, frequency: 'every_minute', ...extra },
  });

describe('Scheduled tasks over HTTPS', () => {
  describe('When an every_minute task is created and a second one is deleted at once', () => {
    it('should run the first against the page on its next minute, never the deleted one, and count the run', async () => {
      const before = Math.floor(Date.now() / 1000);
      const createdA = await createTask('/task-a');
      expect(createdA.status, createdA.body.toString()).toBe(201);
      const a = createdA.json<TaskResource>();
      expect(a).toEqual({
        id: expect.any(Number),
        name: 'Fixture /task-a',
        api: 'screenshot',
        query: `url=${encodeURIComponent(`${fixture.origin}/task-a`)}&format=png`,
        frequency: 'every_minute',
        crontab: '* * * * *',
        timezone: 'Etc/UTC',
        enabled: true,
        created: expect.any(Number),
        last_run: null,
        runs: 0,
        keep_session: false,
      });
      expect(a.created).toBeGreaterThanOrEqual(before);

      const b = (await createTask('/task-b')).json<TaskResource>();
      expect(b.id).not.toBe(a.id);
      const deleted = await stack.call('DELETE', `/v1/tasks/${b.id}?access_key=${stack.demo.accessKey}`);
      expect(deleted.status).toBe(204);
      expect(deleted.body.length).toBe(0);
      expect((await stack.call('GET', `/v1/tasks/${b.id}`, { headers: demo() })).json()).toMatchObject({ statusCode: 404, code: 'task_not_found' });

      await until(() => fixture.hits('/task-a') > 0, 75_000, 'the first run of task A to load its page');
      await until(
        async () => (await stack.call('GET', `/v1/tasks/${a.id}/runs`, { headers: demo() })).json<{ runs: TaskRunResource[] }>().runs.some((r) => r.status !== 'running'),
        30_000,
        'the outcome of the run',
      );
      const { runs } = (await stack.call('GET', `/v1/tasks/${a.id}/runs`, { headers: demo() })).json<{ runs: TaskRunResource[] }>();
      const run = runs.at(-1)!;
      expect(run).toMatchObject({ task_id: a.id, status: 'succeeded', error: null });
      expect(run.due % 60).toBe(0);
      expect(run.started - run.due).toBeLessThanOrEqual(1); // fires within a second of its due time
      // On the origin the client called (127.0.0.1 here), under an unguessable name.
      expect(run.file).toMatch(new RegExp(`^https://127\\.0\\.0\\.1:${stack.port}/v1/files/[A-Za-z0-9_-]{43}$`));

      const after = (await stack.call('GET', `/v1/tasks/${a.id}`, { headers: demo() })).json<TaskResource>();
      expect(after.runs).toBeGreaterThanOrEqual(1);
      expect(after.last_run).toBeGreaterThanOrEqual(run.started);

      // The result stays in the object store, served by its file URL.
      const file = await httpsRequest(run.file!, { ca: stack.certPem, servername: 'localhost' });
      expect(file.status).toBe(200);
      expect(await imageInfo(file.body)).toEqual({ format: 'png', width: 1280, height: 1080 });

      // Task B was deleted before its first minute: nothing of it ran while A did.
      await new Promise((r) => setTimeout(r, 2_000));
      expect(fixture.hits('/task-b')).toBe(0);
      expect(finished.events.filter((e) => e.task_id === String(b.id))).toEqual([]);
      expect(finished.events.filter((e) => e.task_id === String(a.id) && e.origin === 'task').length).toBeGreaterThanOrEqual(1);

      const removed = await stack.call('DELETE', `/v1/tasks/${a.id}`, { headers: demo() });
      expect(removed.status).toBe(204);
      expect((await stack.call('GET', `/v1/tasks/${a.id}/runs`, { headers: demo() })).status).toBe(404);
      const listed = (await stack.call('GET', '/v1/tasks', { headers: demo() })).json<{ tasks: TaskResource[] }>().tasks.map((t) => t.id);
      expect(listed).not.toContain(a.id);
      expect(listed).not.toContain(b.id);
    }, 150_000);
  });

  describe('When another account asks for a task', () => {
    it('should answer 404, as if it did not exist', async () => {
      const task = (await createTask('/task-a', { frequency: 'every_day', enabled: false })).json<TaskResource>();
      for (const [method, path] of [
        ['GET', `/v1/tasks/${task.id}`],
        ['GET', `/v1/tasks/${task.id}/runs`],
        ['PATCH', `/v1/tasks/${task.id}`],
        ['POST', `/v1/tasks/${task.id}/runs`],
        ['DELETE', `/v1/tasks/${task.id}`],
      ] as const) {
        const res = await stack.call(method, path, { headers: as(otherScale.accessKey), ...(method === 'PATCH' ? { json: { name: 'mine now' } } : {}) });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.json()).toMatchObject({ code: 'task_not_found' });
      }
      expect((await stack.call('GET', '/v1/tasks', { headers: as(otherScale.accessKey) })).json()).toEqual({ tasks: [] });
      expect((await stack.call('GET', `/v1/tasks/${task.id}`, { headers: demo() })).json()).toMatchObject({ name: 'Fixture /task-a' });
    });
  });

  describe('When the owner asks for a run now, outside the schedule of a disabled task', () => {
    it('should answer 202 with the running run, render the page at once and keep its file', async () => {
      const query = `url=${encodeURIComponent(`${fixture.origin}/task-now`)}&format=png&webhook_url=${encodeURIComponent(`${receiver.url}/task-run`)}`;
      const task = (await createTask('/task-now', { query, frequency: 'every_month', enabled: false })).json<TaskResource>();
      const asked = Math.floor(Date.now() / 1000);
      const res = await stack.call('POST', `/v1/tasks/${task.id}/runs`, { headers: demo() });
      expect(res.status, res.body.toString()).toBe(202);
      const run = res.json<TaskRunResource>();
      expect(run).toMatchObject({ id: expect.stringMatching(new RegExp(`^${task.id}-now-\\d+-[A-Za-z0-9]{8}$`)), task_id: task.id, trigger: 'manual', status: 'running', file: null });
      expect(run.started).toBeGreaterThanOrEqual(asked);

      await until(() => fixture.hits('/task-now') > 0, 30_000, 'the run to load its page');
      await until(
        async () => (await stack.call('GET', `/v1/tasks/${task.id}/runs`, { headers: demo() })).json<{ runs: TaskRunResource[] }>().runs[0]?.status !== 'running',
        30_000,
        'the outcome of the run',
      );
      const [done] = (await stack.call('GET', `/v1/tasks/${task.id}/runs`, { headers: demo() })).json<{ runs: TaskRunResource[] }>().runs;
      expect(done).toMatchObject({ id: run.id, trigger: 'manual', status: 'succeeded', error: null });
      const file = await httpsRequest(done!.file!, { ca: stack.certPem, servername: 'localhost' });
      expect(await imageInfo(file.body)).toEqual({ format: 'png', width: 1280, height: 1080 });
      // The webhook of its query: one signed delivery naming the task, with the run's file.
      await until(() => receiver.accepted().some((w) => w.path === '/task-run'), 30_000, "the run's webhook");
      const hooks = receiver.accepted().filter((w) => w.path === '/task-run');
      expect(hooks).toHaveLength(1);
      expect(hooks[0]).toMatchObject({ standardOk: true, plainOk: true });
      expect(JSON.parse(hooks[0]!.body)).toMatchObject({ status: 'succeeded', task_id: String(task.id), file: done!.file });
      // Still disabled, and no occurrence of its schedule was taken by the run.
      const after = (await stack.call('GET', `/v1/tasks/${task.id}`, { headers: demo() })).json<TaskResource>();
      expect(after).toMatchObject({ enabled: false, runs: 1 });
    });
  });

  describe('When the owner updates a task', () => {
    it('should answer 200 with the changed task', async () => {
      const task = (await createTask('/task-a', { frequency: 'every_hour', enabled: false })).json<TaskResource>();
      const res = await stack.call('PATCH', `/v1/tasks/${task.id}`, {
        json: { access_key: stack.demo.accessKey, name: 'Renamed', frequency: 'custom', crontab: '0 9 * * 1-5', timezone: 'Europe/Berlin' },
      });
      expect(res.status).toBe(200);
      expect(res.json()).toEqual({ ...task, name: 'Renamed', frequency: 'custom', crontab: '0 9 * * 1-5', timezone: 'Europe/Berlin' });
    });
  });

  describe('When the request breaks the rules', () => {
    it('should answer 400 naming each bad parameter', async () => {
      const res = await stack.call('POST', '/v1/tasks', {
        headers: demo(),
        json: { name: 'bad', api: 'video', query: `url=${fixture.origin}/&access_key=${stack.demo.accessKey}`, frequency: 'every_minute', crontab: '*/5 * * * *' },
      });
      expect(res.status).toBe(400);
      expect(res.json<{ details: { parameter: string }[] }>().details.map((d) => d.parameter).sort()).toEqual(['api', 'crontab']);
      const query = await stack.call('POST', '/v1/tasks', {
        headers: demo(),
        json: { name: 'bad', api: 'pdf', query: `url=${fixture.origin}/&access_key=${stack.demo.accessKey}`, frequency: 'every_minute' },
      });
      expect(query.json()).toMatchObject({ statusCode: 400, code: 'invalid_parameter', details: [{ parameter: 'query.access_key' }] });
    });
  });

  describe('When the account is not on the Scale plan', () => {
    it('should answer 402 plan_upgrade_required', async () => {
      const res = await stack.call('POST', '/v1/tasks', {
        headers: as(basic.accessKey),
        json: { name: 'x', api: 'screenshot', query: `url=${fixture.origin}/`, frequency: 'every_hour' },
      });
      expect(res.status).toBe(402);
      expect(res.json()).toMatchObject({ statusCode: 402, error: 'Payment Required', code: 'plan_upgrade_required' });
      expect((await stack.call('GET', '/v1/tasks', { headers: as(basic.accessKey) })).status).toBe(402);
    });
  });
});
