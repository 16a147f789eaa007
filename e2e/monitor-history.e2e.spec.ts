import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, startTestStack, until, type FixtureServer, type TestStack } from '@app/testkit';
import type { RunChangeResource, TaskRunResource } from '@app/task-resources';

// A monitor's history through the whole stack: three runs of a text monitor asked for now (A, B, then A
// again), then any two of its kept runs compared with GET /v1/tasks/{id}/compare (in the scheduler's
// comparison threads, over gRPC from the edge): A with A is unchanged, A with B changed with a diff file
// that downloads and names the price on each side.

type Run = Pick<TaskRunResource, 'id' | 'status'> & { change: RunChangeResource | null };

let stack: TestStack;
let fixture: FixtureServer;
/** What the watched page shows now (the test changes it between runs). */
let price = '$29';

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/plans': (_req, res) =>
      void res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><body><h1>Plans</h1><p>Basic $9</p><p id="pro">Pro ${price}</p></body></html>`),
  });
  stack = await startTestStack({ env: { ALLOW_PRIVATE_TARGETS: '1' } });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await fixture?.close();
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });
const runsOf = async (id: number): Promise<Run[]> => {
  const res = await stack.call('GET', `/v1/tasks/${id}/runs`, { headers: key() });
  if (res.status !== 200) throw new Error(`GET /v1/tasks/${id}/runs answered ${res.status}: ${res.body.toString()}`);
  return res.json<{ runs: Run[] }>().runs;
};
const compare = (id: number, query: string) => stack.call('GET', `/v1/tasks/${id}/compare?${query}`, { headers: key() });

describe('Comparing any two kept runs of a monitor', () => {
  let taskId: number;
  const ids: string[] = [];

  it('should record three compared runs asked for now: A (the baseline), B (changed), A (changed back)', async () => {
    const created = await stack.call('POST', '/v1/tasks', {
      headers: key(),
      json: {
        name: 'Plans history',
        api: 'scrape',
        query: `url=${encodeURIComponent(`${fixture.origin}/plans`)}`,
        frequency: 'every_day',
        enabled: false,
        monitor: { mode: 'text', confirm: false, keep: 10 },
      },
    });
    expect(created.status, created.body.toString()).toBe(201);
    taskId = created.json<{ id: number }>().id;
    for (const [n, shown] of ['$29', '$39', '$29'].entries()) {
      price = shown;
      const asked = await stack.call('POST', `/v1/tasks/${taskId}/runs`, { headers: key() });
      expect(asked.status, asked.body.toString()).toBe(202);
      const id = asked.json<Run>().id;
      ids.push(id);
      // Polled slowly: every call counts against the account's rate limit.
      await until(async () => (await runsOf(taskId)).find((r) => r.id === id)?.change != null, 90_000, `run ${n + 1} compared`, 1_000);
    }
    const byId = new Map((await runsOf(taskId)).map((r) => [r.id, r]));
    expect(ids.map((id) => byId.get(id)?.change?.status)).toEqual(['baseline', 'changed', 'changed']);
  }, 300_000);

  it('should find the first and the third run unchanged', async () => {
    const res = await compare(taskId, `from=${ids[0]}&to=${ids[2]}`);
    expect(res.status, res.body.toString()).toBe(200);
    expect(res.json<RunChangeResource>()).toMatchObject({ status: 'unchanged', score: 0, diff: null, before: expect.stringContaining('/v1/files/'), after: expect.stringContaining('/v1/files/') });
  });

  it('should find the first and the second run changed, with a diff file that downloads', async () => {
    const res = await compare(taskId, `from=${ids[0]}&to=${ids[1]}`);
    expect(res.status, res.body.toString()).toBe(200);
    const change = res.json<RunChangeResource>();
    expect(change).toMatchObject({ status: 'changed', summary: expect.any(String) });
    expect(change.score).toBeGreaterThan(0);
    const diff = await stack.call('GET', new URL(change.diff!).pathname);
    expect(diff.status).toBe(200);
    const lines = diff.body.toString('utf8').split('\n');
    expect(lines).toContain('-Pro $29');
    expect(lines).toContain('+Pro $39');
    // The compared files download too: what each run's page said.
    const after = await stack.call('GET', new URL(change.after!).pathname);
    expect(after.body.toString('utf8')).toContain('Pro $39');
  });

  it('should answer 400 naming from or to for a bad run id, 404 for a run not kept or another account\'s task', async () => {
    const bad = await compare(taskId, `from=nope&to=${ids[1]}`);
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'from' }] });
    const missing = await compare(taskId, `from=${ids[0]}`);
    expect(missing.status).toBe(400);
    expect(missing.json()).toMatchObject({ details: [{ parameter: 'to' }] });
    const unknown = await compare(taskId, `from=${ids[0]}&to=${taskId}-1700000000`);
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'run_not_found', details: [{ parameter: 'to' }] });
    const other = await stack.call('POST', '/v1/tasks', {
      headers: key(),
      json: { name: 'Other', api: 'scrape', query: `url=${encodeURIComponent(`${fixture.origin}/plans`)}`, frequency: 'every_day', enabled: false, monitor: { mode: 'text' } },
    });
    // The runs of one task are not kept runs of another.
    const elsewhere = await compare(other.json<{ id: number }>().id, `from=${ids[0]}&to=${ids[1]}`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.json()).toMatchObject({ code: 'run_not_found', details: [{ parameter: 'from' }] });
  });
});
