import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  filesUnder,
  startOtlpReceiver,
  signInSteps as signInStepsOf,
  startSignInSite,
  startTestStack,
  startWebhookReceiver,
  until,
  type HttpsResponse,
  type SignInSite,
  type TestStack,
} from '@app/testkit';
import type { TaskResource, TaskRunResource } from '@app/task-resources';

// Browser steps and account secrets through the whole stack, as `npm start` runs it: a render and a task
// sign in to a fixture site by steps with the password kept as an account secret; the site receives the
// password (it was typed), and afterwards the value is searched for everywhere the service writes or
// answers: every API answer, the task and its runs, the webhooks, the exported traces, the dashboard,
// and every byte under the data folder (the event stores, the NATS store with every stream, KV bucket
// and object store, and every service's log file).

const SECRET = `pw-${Math.random().toString(36).slice(2)}-Zq9`;
const NAME = 'shop.password';

let stack: TestStack;
let site: SignInSite;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
/** Every answer the API gave in this file. */
const answers: string[] = [];

const demo = () => ({ 'x-access-key': stack.demo.accessKey });
const call = async (method: string, path: string, opts: Parameters<TestStack['call']>[2] = {}): Promise<HttpsResponse> => {
  const res = await stack.call(method, path, { ...opts, headers: { ...demo(), ...opts.headers } });
  answers.push(`${JSON.stringify(res.headers)}\n${res.body.toString('latin1')}`);
  return res;
};

const signInSteps = () => signInStepsOf(site, 'ann', NAME);

beforeAll(async () => {
  site = await startSignInSite({ user: 'ann', password: SECRET, sessionMs: 60_000 });
  otlp = await startOtlpReceiver();
  receiver = await startWebhookReceiver({ secret: () => stack.demo.secretKey });
  stack = await startTestStack({
    env: { ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'debug', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, PLAN_SCALE_RENDERS_IN_FLIGHT: '1' },
  });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await Promise.all([site?.close(), otlp?.close(), receiver?.close()]);
});


describe('Account secrets typed by browser steps', () => {
  let taskId: number;

  it('should keep a secret and answer only its name and dates', async () => {
    const put = await call('POST', '/v1/secrets', { json: { name: NAME, value: SECRET } });
    expect(put.status, put.body.toString()).toBe(201);
    expect(put.json()).toEqual({ name: NAME, created: expect.any(Number), updated: expect.any(Number), replaced: false });
    const list = await call('GET', '/v1/secrets');
    expect(list.json()).toEqual({ secrets: [{ name: NAME, created: expect.any(Number), updated: expect.any(Number) }] });
    const bad = await call('POST', '/v1/secrets', { json: { name: 'with space', value: 'x' } });
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'name' }] });
  });

  it('should sign in with the secret in a render (the site received it) and answer the page behind the sign-in', async () => {
    const before = site.signIns();
    const res = await call('POST', '/v1/scrape', { json: { url: `${site.origin}/login`, steps: signInSteps() } });
    expect(res.status, res.body.toString()).toBe(200);
    expect(res.body.toString()).toContain('Balance: 100 EUR');
    expect(site.signIns() - before).toBe(1);
    expect(site.passwordsReceived().at(-1)).toBe(SECRET);
  });

  it('should do the same in an async render with a webhook', async () => {
    const res = await call('POST', '/v1/scrape', { json: { url: `${site.origin}/login`, steps: signInSteps(), async: true, webhook_url: `${receiver.url}/render` } });
    expect(res.status, res.body.toString()).toBe(202);
    const { id } = res.json<{ id: string }>();
    await until(() => receiver.accepted().some((w) => w.path === '/render'), 60_000, 'the webhook');
    const status = await call('GET', `/v1/renders/${id}`);
    expect(status.json()).toMatchObject({ status: 'succeeded' });
  });

  it('should run a task whose query types the secret, with its webhook', async () => {
    const query = `url=${encodeURIComponent(`${site.origin}/login`)}&format=html&steps=${encodeURIComponent(JSON.stringify(signInSteps()))}&webhook_url=${encodeURIComponent(`${receiver.url}/task`)}`;
    const created = await call('POST', '/v1/tasks', { json: { name: 'Balance', api: 'scrape', query, frequency: 'every_month', enabled: false } });
    expect(created.status, created.body.toString()).toBe(201);
    taskId = created.json<TaskResource>().id;
    expect((await call('POST', `/v1/tasks/${taskId}/runs`)).status).toBe(202);
    await until(async () => (await call('GET', `/v1/tasks/${taskId}/runs`)).json<{ runs: TaskRunResource[] }>().runs[0]?.status !== 'running', 60_000, 'the run', 1_000);
    const [run] = (await call('GET', `/v1/tasks/${taskId}/runs`)).json<{ runs: TaskRunResource[] }>().runs;
    expect(run).toMatchObject({ status: 'succeeded', error: null });
    await call('GET', `/v1/tasks/${taskId}`);
    await until(() => receiver.accepted().some((w) => w.path === '/task'), 60_000, "the run's webhook");
  });

  it('should answer secret CRUD while the account has its one render in flight (never counted against it)', async () => {
    const slow = call('POST', '/v1/scrape', { json: { url: `${site.origin}/login`, steps: [{ action: 'wait', ms: 8_000 }] } });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // The plan allows one render at once: another is refused, so the one in flight holds the limit.
    const refused = await call('POST', '/v1/scrape', { json: { url: `${site.origin}/login` } });
    expect(refused.json()).toMatchObject({ code: 'concurrency_limited' });
    const put = await call('POST', '/v1/secrets', { json: { name: 'spare', value: 'spare-value' } });
    const list = await call('GET', '/v1/secrets');
    const removed = await call('DELETE', '/v1/secrets/spare');
    expect([put.status, list.status, removed.status]).toEqual([201, 200, 204]);
    expect((await slow).status).toBe(200);
  });

  it("should never show the value: answers, task, runs, webhooks, traces, dashboard, event stores, NATS, logs", async () => {
    // The dashboard, signed in as the owner: its page and its views of the task and its runs.
    const session = await stack.call('POST', '/dashboard/api/sign-in', { json: { access_key: stack.demo.accessKey, secret_key: stack.demo.secretKey } });
    expect(session.status).toBe(200);
    const cookie = String(session.headers['set-cookie']).split(';')[0]!;
    for (const path of ['/dashboard', '/dashboard/api/session', '/dashboard/api/tasks', `/dashboard/api/tasks/${taskId}/runs`]) {
      answers.push((await stack.call('GET', path, { headers: { cookie } })).body.toString('latin1'));
    }
    // Let the services flush their logs and traces.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const places: Record<string, string[]> = {
      answers,
      webhooks: receiver.accepted().map((w) => `${JSON.stringify(w.headers)}\n${w.body}`),
      traces: otlp.bodies,
    };
    expect(answers.length).toBeGreaterThan(10);
    expect(places.webhooks!.length).toBeGreaterThanOrEqual(2);
    expect(otlp.bodies.length).toBeGreaterThan(0);
    for (const [place, texts] of Object.entries(places)) {
      expect(texts.filter((t) => t.includes(SECRET)), place).toEqual([]);
    }
    // Every byte the stack wrote: the event stores, the NATS store, the logs.
    const files = filesUnder(stack.dataDir);
    expect(files.some((f) => f.includes(`${join('nats', '')}`))).toBe(true);
    expect(files.some((f) => f.includes(join('logs', '')))).toBe(true);
    expect(files.some((f) => f.endsWith('.db'))).toBe(true);
    expect(files.filter((f) => readFileSync(f).includes(Buffer.from(SECRET)))).toEqual([]);
    // The same search finds what does travel: the secret's name (in the jobs and the task's query).
    expect(files.filter((f) => readFileSync(f).includes(Buffer.from(NAME))).length).toBeGreaterThan(0);
  });

  it("should fail the task's next run naming the secret once it is deleted", async () => {
    expect((await call('DELETE', `/v1/secrets/${NAME}`)).status).toBe(204);
    expect((await call('DELETE', `/v1/secrets/${NAME}`)).json()).toMatchObject({ code: 'secret_not_found' });
    site.endSessions();
    expect((await call('POST', `/v1/tasks/${taskId}/runs`)).status).toBe(202);
    await until(async () => (await call('GET', `/v1/tasks/${taskId}/runs`)).json<{ runs: TaskRunResource[] }>().runs[0]?.status !== 'running', 60_000, 'the run', 1_000);
    const [run] = (await call('GET', `/v1/tasks/${taskId}/runs`)).json<{ runs: TaskRunResource[] }>().runs;
    expect(run).toMatchObject({ status: 'failed', error: { code: 'secret_not_found', message: expect.stringContaining(`steps[2].secret`) } });
    expect(run!.error!.message).toContain(NAME);
  });
});

describe('A text monitor behind a sign-in', () => {
  it('should notice a change of the signed-in page', async () => {
    await call('POST', '/v1/secrets', { json: { name: NAME, value: SECRET } });
    const query = `url=${encodeURIComponent(`${site.origin}/login`)}&format=html&steps=${encodeURIComponent(JSON.stringify(signInSteps()))}`;
    const created = await call('POST', '/v1/tasks', {
      json: { name: 'Balance watch', api: 'scrape', query, frequency: 'every_month', enabled: false, monitor: { mode: 'text', selector: '#balance', confirm: false } },
    });
    expect(created.status, created.body.toString()).toBe(201);
    const id = created.json<TaskResource>().id;
    const runOnce = async () => {
      const before = (await call('GET', `/v1/tasks/${id}/runs`)).json<{ runs: TaskRunResource[] }>().runs.length;
      expect((await call('POST', `/v1/tasks/${id}/runs`)).status).toBe(202);
      await until(
        async () => {
          const { runs } = (await call('GET', `/v1/tasks/${id}/runs`)).json<{ runs: TaskRunResource[] }>();
          return runs.length > before && runs[0]!.status !== 'running' && (runs[0]!.status === 'failed' || runs[0]!.change != null);
        },
        60_000,
        'the run and its comparison',
        1_000,
      );
      return (await call('GET', `/v1/tasks/${id}/runs`)).json<{ runs: TaskRunResource[] }>().runs[0]!;
    };
    site.setBalance('Balance: 100 EUR');
    expect(await runOnce()).toMatchObject({ status: 'succeeded', change: { status: 'baseline' } });
    expect(await runOnce()).toMatchObject({ status: 'succeeded', change: { status: 'unchanged' } });
    site.setBalance('Balance: 250 EUR');
    const changed = await runOnce();
    expect(changed).toMatchObject({ status: 'succeeded', change: { status: 'changed' } });
    expect(changed.change!.summary).toMatch(/1 line added, 1 line removed.*Balance: 100 EUR/);
  });
});

describe('Steps at the API', () => {
  it('should answer 400 naming steps[i].field, and a 1 MB type with a bound on its length', async () => {
    const bad = await call('POST', '/v1/screenshot', { json: { url: `${site.origin}/login`, steps: [{ action: 'click' }] } });
    expect(bad.json()).toMatchObject({ statusCode: 400, code: 'invalid_parameter', details: [{ parameter: 'steps[0].selector' }] });
    const huge = await call('POST', '/v1/screenshot', { json: { url: `${site.origin}/login`, steps: [{ action: 'type', selector: '#user', text: 'x'.repeat(1_000_000) }] } });
    expect(huge.status).toBe(400);
    expect(huge.json()).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'steps[0].text' }] });
  });

  it('should answer a step that cannot finish as render_timeout naming it, within timeout', async () => {
    const started = Date.now();
    const res = await call('POST', '/v1/scrape', { json: { url: `${site.origin}/login`, timeout: 5, steps: [{ action: 'wait_for_selector', selector: '#never' }] } });
    expect(res.status).toBe(500);
    expect(res.json()).toMatchObject({ code: 'render_timeout', message: expect.stringContaining('steps[0] (wait_for_selector "#never")') });
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
