import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesUnder, signInSteps as signInStepsOf, startSignInSite, startTestStack, until, type HttpsResponse, type SignInSite, type TestStack } from '@app/testkit';
import type { TaskResource, TaskRunResource } from '@app/task-resources';

// A task's keep_session through the whole stack, as `npm start` runs it: a task whose steps sign in (each
// sign-in step optional) to a fixture site whose session cookie expires. With keep_session its second and
// third runs start signed in (the site receives no sign-in form), its local storage comes back too, and
// the run after the session ended signs in again. Another task of the same account on the same site
// does not get that session: it signs in itself. No session id is in any answer or byte the stack wrote.

const SECRET = `pw-${Math.random().toString(36).slice(2)}-Kp4`;
const NAME = 'shop.password';
/** Long enough for two runs after the first on a slow machine, short enough to wait out. */
const SESSION_MS = 40_000;

let stack: TestStack;
let site: SignInSite;
const answers: string[] = [];

const call = async (method: string, path: string, opts: Parameters<TestStack['call']>[2] = {}): Promise<HttpsResponse> => {
  const res = await stack.call(method, path, { ...opts, headers: { 'x-access-key': stack.demo.accessKey, ...opts.headers } });
  answers.push(res.body.toString('latin1'));
  return res;
};

const signInSteps = () => signInStepsOf(site, 'ann', NAME);

beforeAll(async () => {
  site = await startSignInSite({ user: 'ann', password: SECRET, sessionMs: SESSION_MS });
  stack = await startTestStack({ env: { ALLOW_PRIVATE_TARGETS: '1', LOG_LEVEL: 'debug' } });
  expect((await call('POST', '/v1/secrets', { json: { name: NAME, value: SECRET } })).status).toBe(201);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await site?.close();
});

const createTask = async (name: string, keepSession: boolean): Promise<TaskResource> => {
  const query = `url=${encodeURIComponent(`${site.origin}/login`)}&format=html&steps=${encodeURIComponent(JSON.stringify(signInSteps()))}`;
  const res = await call('POST', '/v1/tasks', { json: { name, api: 'scrape', query, frequency: 'every_month', enabled: false, keep_session: keepSession } });
  expect(res.status, res.body.toString()).toBe(201);
  return res.json<TaskResource>();
};

/** Runs the task now and answers its finished run and the page it scraped. */
const runNow = async (id: number): Promise<{ run: TaskRunResource; page: string }> => {
  const before = (await call('GET', `/v1/tasks/${id}/runs`)).json<{ runs: TaskRunResource[] }>().runs.length;
  const started = await call('POST', `/v1/tasks/${id}/runs`);
  expect(started.status, started.body.toString()).toBe(202);
  await until(
    async () => {
      const { runs } = (await call('GET', `/v1/tasks/${id}/runs`)).json<{ runs: TaskRunResource[] }>();
      return runs.length > before && runs[0]!.status !== 'running';
    },
    90_000,
    'the run',
    500,
  );
  const run = (await call('GET', `/v1/tasks/${id}/runs`)).json<{ runs: TaskRunResource[] }>().runs[0]!;
  expect(run, JSON.stringify(run)).toMatchObject({ status: 'succeeded', error: null });
  const file = await stack.call('GET', new URL(run.file!).pathname);
  expect(file.status).toBe(200);
  return { run, page: file.body.toString() };
};


describe('A task with keep_session behind a sign-in', () => {
  let kept: TaskResource;

  it('should answer keep_session on the task, false by default', async () => {
    kept = await createTask('Balance, session kept', true);
    expect(kept.keep_session).toBe(true);
    const plain = await createTask('Balance, no session', false);
    expect(plain.keep_session).toBe(false);
    const patched = await call('PATCH', `/v1/tasks/${plain.id}`, { json: { keep_session: true } });
    expect(patched.json<TaskResource>().keep_session).toBe(true);
    const bad = await call('PATCH', `/v1/tasks/${plain.id}`, { json: { keep_session: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'keep_session' }] });
    expect((await call('DELETE', `/v1/tasks/${plain.id}`)).status).toBe(204);
  });

  it('should sign in on the first run, then start signed in (runs 2 and 3 post no sign-in), with its local storage', async () => {
    const first = await runNow(kept.id);
    expect(site.signIns()).toBe(1);
    expect(first.page).toContain('Balance: 100 EUR');
    const started = Date.now();
    for (const _run of [2, 3]) {
      const next = await runNow(kept.id);
      expect(next.page).toContain('Balance: 100 EUR');
      // Reached through the signed-in /login page, and the note the sign-in put in local storage is back.
      expect(next.page).toContain('remembered by local storage');
    }
    expect(site.signIns()).toBe(1);
    // The two runs ran within the session (else the count above would have caught a sign-in).
    expect(Date.now() - started).toBeLessThan(SESSION_MS);
  }, 240_000);

  it("should not share the session with another task of the same account on the same site", async () => {
    const other = await createTask('Balance, another task', true);
    const before = site.signIns();
    const run = await runNow(other.id);
    expect(run.page).toContain('Balance: 100 EUR');
    expect(site.signIns()).toBe(before + 1);
  }, 120_000);

  it('should sign in again once the session ended', async () => {
    const before = site.signIns();
    // The first run's session ends SESSION_MS after it signed in.
    await new Promise((resolve) => setTimeout(resolve, SESSION_MS));
    const run = await runNow(kept.id);
    expect(run.page).toContain('Balance: 100 EUR');
    expect(site.signIns()).toBe(before + 1);
  }, 180_000);

  it('should keep no session id in an answer, nor in any byte the stack wrote (jobs, events, logs)', async () => {
    const ids = site.sessionIds();
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(answers.filter((a) => ids.some((id) => a.includes(id)))).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const files = filesUnder(stack.dataDir);
    expect(files.some((f) => f.endsWith('.db'))).toBe(true);
    expect(files.filter((f) => ids.some((id) => readFileSync(f).includes(Buffer.from(id))))).toEqual([]);
  });

  it('should delete the kept session with the task (auth-quota records it forgotten)', async () => {
    const forgotten = () => filesUnder(stack.dataDir).filter((f) => readFileSync(f).includes(Buffer.from('TaskSessionForgotten'))).length;
    // The task deleted first above kept no session (it never ran): nothing was forgotten yet.
    expect(forgotten()).toBe(0);
    expect((await call('DELETE', `/v1/tasks/${kept.id}`)).status).toBe(204);
    expect((await call('GET', `/v1/tasks/${kept.id}`)).status).toBe(404);
    await until(() => forgotten() > 0, 15_000, 'the session forgotten in the event store', 500);
  });
});
