import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import {
  startFixtureServer,
  startMailReceiver,
  startTestStack,
  startWebhookReceiver,
  until,
  type FixtureServer,
  type MailReceiver,
  type TestStack,
  type WebhookReceiver,
} from '@app/testkit';
import type { RunChangeResource, TaskRunResource } from '@app/task-resources';
import { DISCORD_MESSAGE, SLACK_MESSAGE, TEAMS_MESSAGE_CARD } from './notification-schemas.js';

// Monitoring a page that misbehaves (the real web, section 2), with the whole stack: between identical
// states the page answers 503, 429 and an empty 200. Error pages are failed runs (never compared, never a
// baseline, never a change); three failures in a row start one failing episode, the next good run ends it;
// A → B → A is exactly two changes. Every announcement goes to the task's webhook and to each notify
// channel: Slack, Discord and Teams incoming webhooks (a local receiver, each body checked against the
// service's documented format) and an email received by a real SMTP server.

type Run = Pick<TaskRunResource, 'id' | 'status' | 'error'> & { change: RunChangeResource | null };

let stack: TestStack;
let fixture: FixtureServer;
let receiver: WebhookReceiver;
let smtp: MailReceiver;
/** What the watched page does now. */
let state: 'A' | 'B' | '503' | '429' | 'empty' = 'A';

const page = (price: string) =>
  `<!doctype html><html><body style="margin:0;font:24px sans-serif"><h1>Plans</h1>` +
  `<div style="width:300px;height:80px;background:${price === '$29' ? '#dddddd' : '#ffcc00'}">Pro ${price}</div></body></html>`;

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/pricing': (_req, res) => {
      if (state === '503') return void res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>Service Unavailable</h1>');
      if (state === '429') return void res.writeHead(429, { 'content-type': 'text/html', 'retry-after': '60' }).end('<h1>Too Many Requests</h1>');
      if (state === 'empty') return void res.writeHead(200, { 'content-type': 'text/html' }).end('');
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(state === 'A' ? '$29' : '$39'));
    },
  });
  smtp = await startMailReceiver({ name: 'monitoring-reliable' });
  [stack, receiver] = await Promise.all([
    startTestStack({
      env: { ALLOW_PRIVATE_TARGETS: '1', SMTP_URL: smtp.url, SMTP_FROM: 'Monitor <monitor@example.test>' },
    }),
    startWebhookReceiver({ secret: () => stack.demo.secretKey }),
  ]);
}, 240_000);

afterAll(async () => {
  await Promise.all([receiver?.close(), fixture?.close(), smtp?.close()]);
  await stack?.stop();
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });
const notifyOf = (name: string) => [
  { type: 'slack', url: `${receiver.url}/slack/${name}` },
  { type: 'discord', url: `${receiver.url}/discord/${name}` },
  { type: 'teams', url: `${receiver.url}/teams/${name}` },
  { type: 'email', to: `${name}@example.test` },
];
const createTask = async (name: string, api: 'screenshot' | 'scrape', mode: 'visual' | 'text') => {
  const format = api === 'screenshot' ? 'png' : 'html';
  const res = await stack.call('POST', '/v1/tasks', {
    headers: key(),
    json: {
      name,
      api,
      query: `url=${encodeURIComponent(`${fixture.origin}/pricing`)}&format=${format}&webhook_url=${encodeURIComponent(`${receiver.url}/hooks/${name}`)}`,
      frequency: 'every_month',
      // Runs only when asked for (POST /v1/tasks/{id}/runs): one per state of the page.
      enabled: false,
      monitor: { mode, confirm: false, alert_after_failures: 3, notify: notifyOf(name) },
    },
  });
  if (res.status !== 201) throw new Error(`POST /v1/tasks answered ${res.status}: ${res.body.toString()}`);
  return res.json<{ id: number; monitor: Record<string, unknown> }>();
};
const runsOf = async (id: number): Promise<Run[]> => {
  const res = await stack.call('GET', `/v1/tasks/${id}/runs`, { headers: key() });
  if (res.status !== 200) throw new Error(`GET /v1/tasks/${id}/runs answered ${res.status}: ${res.body.toString()}`);
  return res.json<{ runs: Run[] }>().runs;
};
/** A run is over when its render failed, or when it was compared. */
const settled = (r: Run | undefined) => !!r && (r.status === 'failed' || (r.status === 'succeeded' && r.change !== null));
const runNow = async (ids: number[]): Promise<Run[]> => {
  const started = await Promise.all(
    ids.map(async (id) => {
      const res = await stack.call('POST', `/v1/tasks/${id}/runs`, { headers: key() });
      if (res.status !== 202) throw new Error(`POST /v1/tasks/${id}/runs answered ${res.status}: ${res.body.toString()}`);
      return res.json<{ id: string }>().id;
    }),
  );
  let runs: Run[] = [];
  await until(
    async () => {
      const all = await Promise.all(ids.map(runsOf));
      runs = all.map((list, i) => list.find((r) => r.id === started[i])!);
      return runs.every(settled);
    },
    120_000,
    `runs ${started.join(', ')} settled`,
    1_500,
  );
  return runs;
};
const hooksTo = (path: string) => receiver.received.filter((w) => w.path === path);
const bodyOf = (w: { body: string }) => JSON.parse(w.body) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('a monitor of a page that answers errors, between identical states', () => {
  const tasks: { name: string; id: number }[] = [];
  const history: Run[][] = [];
  const STATES = ['A', '503', '429', 'empty', 'A', 'B', 'A'] as const;

  beforeAll(async () => {
    for (const [name, api, mode] of [
      ['visual', 'screenshot', 'visual'],
      ['text', 'scrape', 'text'],
    ] as const) {
      tasks.push({ name, id: (await createTask(name, api, mode)).id });
    }
    for (const s of STATES) {
      state = s;
      history.push(await runNow(tasks.map((t) => t.id)));
    }
    // The announcements of the last runs reach every channel (the dispatcher delivers them shortly after).
    await until(() => smtp.mails.length >= 2 * 4 && tasks.every((t) => hooksTo(`/hooks/${t.name}`).length >= 4), 60_000, 'every announcement delivered', 500);
    // Room for a duplicate, if one were coming.
    await new Promise((r) => setTimeout(r, 3_000));
  }, 900_000);

  it('should show the monitor with its defaults (fail_on_status 400-599) and its channels', async () => {
    const res = await stack.call('GET', `/v1/tasks/${tasks[0]!.id}`, { headers: key() });
    const monitor = res.json<{ monitor: Record<string, unknown> }>().monitor;
    expect(monitor).toMatchObject({ fail_on_status: ['400-599'], alert_after_failures: 3, keep: 50 });
    expect(monitor.notify).toEqual(notifyOf('visual'));
  });

  it('should record the 503 and the 429 as failed runs with their reason, and the empty page as a failed comparison', () => {
    for (const [i] of tasks.entries()) {
      const runs = history.map((step) => step[i]!);
      expect(runs[1]).toMatchObject({ status: 'failed', error: { code: 'host_returned_error' } });
      expect(runs[1]!.error!.message).toContain('503');
      expect(runs[1]!.change).toBeNull();
      expect(runs[2]).toMatchObject({ status: 'failed', error: { code: 'host_returned_error' } });
      expect(runs[2]!.error!.message).toContain('429');
      expect(runs[3]!.change).toMatchObject({ status: 'failed' });
      expect(runs[3]!.change!.summary).toMatch(/empty page/);
    }
  });

  it('should compare the good runs with the last good one: no change after the errors, exactly two for A → B → A', async () => {
    for (const [i, task] of tasks.entries()) {
      const statuses = history.map((step) => step[i]!.change?.status ?? step[i]!.status);
      expect(statuses, task.name).toEqual(['baseline', 'failed', 'failed', 'failed', 'unchanged', 'changed', 'changed']);
      const changes = (await stack.call('GET', `/v1/tasks/${task.id}/changes`, { headers: key() })).json<{ changes: Run[] }>().changes;
      expect(changes.map((c) => c.id)).toEqual([history[6]![i]!.id, history[5]![i]!.id]);
      // The run after the errors was compared with the first A, never with an error page.
      expect(history[4]![i]!.change!.before).toBe(history[0]![i]!.change!.after);
    }
  });

  it('should send each webhook once: two task.changed, one task.failing after the third failure, one task.recovered, all signed', () => {
    for (const [i, task] of tasks.entries()) {
      const hooks = hooksTo(`/hooks/${task.name}`);
      expect(hooks.every((h) => h.standardOk && h.plainOk)).toBe(true);
      // Each announcement is delivered on its own (a retried one may come after a later one): not in order.
      expect(hooks.map((h) => bodyOf(h).type).sort()).toEqual(['task.changed', 'task.changed', 'task.failing', 'task.recovered']);
      const typed = (type: string) => hooks.find((h) => bodyOf(h).type === type)!;
      const failing = bodyOf(typed('task.failing'));
      const recovered = bodyOf(typed('task.recovered'));
      expect(failing).toMatchObject({ task_id: task.id, run_id: history[3]![i]!.id, failures: 3 });
      expect(failing.reason).toMatch(/empty page/);
      expect(recovered).toMatchObject({ task_id: task.id, run_id: history[4]![i]!.id });
      // One webhook id per announcement: the episode's for failing and recovered, the run's for a change.
      const ids = hooks.map((h) => h.headers['webhook-id']);
      expect(new Set(ids).size).toBe(4);
      expect([typed('task.failing'), typed('task.recovered')].map((h) => h.headers['webhook-id'])).toEqual([
        `failing-${history[3]![i]!.id}`,
        `recovered-${history[3]![i]!.id}`,
      ]);
    }
  });

  it("should send Slack, Discord and Teams each announcement once, in the service's documented format, with the summary, the diff and the dashboard link", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const schemas = { slack: ajv.compile(SLACK_MESSAGE), discord: ajv.compile(DISCORD_MESSAGE), teams: ajv.compile(TEAMS_MESSAGE_CARD) };
    for (const [i, task] of tasks.entries()) {
      for (const [kind, validate] of Object.entries(schemas)) {
        const received = hooksTo(`/${kind}/${task.name}`);
        expect(received.length, `${kind} ${task.name}`).toBe(4);
        for (const r of received) expect(validate(bodyOf(r)), `${kind}: ${JSON.stringify(validate.errors)}`).toBe(true);
        const texts = received.map((r) => r.body);
        expect(texts.filter((t) => t.includes('is failing'))).toHaveLength(1);
        expect(texts.filter((t) => t.includes('recovered'))).toHaveLength(1);
        const change = history[5]![i]!.change!;
        const changed = texts.find((t) => t.includes(change.diff!));
        expect(changed).toContain(JSON.stringify(change.summary).slice(1, 20));
        expect(texts.every((t) => t.includes(`/dashboard#tasks/${task.id}`))).toBe(true);
      }
    }
  });

  it('should mail each announcement once to the address, through the SMTP server, with its subject and body', () => {
    for (const [i, task] of tasks.entries()) {
      const to = `${task.name}@example.test`;
      const received = smtp.mails.filter((m) => m.to.includes(to));
      const subjects = received.map((m) => m.mail.subject ?? '');
      expect(subjects).toHaveLength(4);
      for (const [word, count] of [['is failing', 1], ['recovered', 1], ['changed', 2]] as const) {
        expect(subjects.filter((s) => s.includes(word)), `${word}: ${subjects.join(' | ')}`).toHaveLength(count);
      }
      expect(received.every((m) => m.mail.from?.text.includes('monitor@example.test'))).toBe(true);
      const change = history[5]![i]!.change!;
      const changedMail = received.find((m) => m.mail.text?.includes(change.diff!));
      expect(changedMail?.mail.text).toContain(change.summary);
      expect(changedMail?.mail.text).toContain(`/dashboard#tasks/${task.id}`);
    }
  });
});

describe('a notify channel that cannot be sent to', () => {
  it('should be refused with a 400 naming monitor.notify[i]', async () => {
    const res = await stack.call('POST', '/v1/tasks', {
      headers: key(),
      json: {
        name: 'bad email',
        api: 'scrape',
        query: `url=${encodeURIComponent(`${fixture.origin}/pricing`)}&format=html`,
        frequency: 'every_month',
        monitor: { mode: 'text', notify: [{ type: 'slack', url: `${receiver.url}/slack/x` }, { type: 'email', to: 'not an address' }] },
      },
    });
    expect(res.status).toBe(400);
    expect(res.json<{ details: { parameter: string }[] }>().details.map((d) => d.parameter)).toEqual(['monitor.notify[1].to']);
  });
});
