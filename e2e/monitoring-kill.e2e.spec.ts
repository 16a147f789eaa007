import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SCHEDULER_RUN_COMPARISONS_CONSUMER,
  SCHEDULER_TASK_RUNS_CONSUMER,
  WEBHOOK_TASK_CHANGES_CONSUMER,
  connectNats,
  jetstreamManager,
  type NatsConnection,
} from '@app/messaging';
import {
  startFixtureServer,
  startMailReceiver,
  startTestStack,
  startWebhookReceiver,
  until,
  type FixtureServer,
  type MailReceiver,
  type ReceivedWebhook,
  type TestStack,
  type WebhookReceiver,
} from '@app/testkit';
import type { RunChangeResource, TaskRunResource } from '@app/task-resources';

// Monitoring announcements survive a crash (issue 48, reliability), with the whole stack as `npm start` runs
// it: the scheduler is killed with SIGKILL while it compares a run (a tall screenshot, so the comparison takes
// seconds), and the webhook dispatcher while every announcement waits for its next attempt (the receivers
// refuse at first); the supervisor restarts each. Every change and every failing episode then reaches every
// channel (the task's signed webhook, Slack, Discord and Teams incoming webhooks at a local receiver, an
// email at a real SMTP server) exactly once as received: none lost, none twice.

type Run = Pick<TaskRunResource, 'id' | 'status' | 'error'> & { change: RunChangeResource | null };

let stack: TestStack;
let fixture: FixtureServer;
let receiver: WebhookReceiver;
/** Every message it was given: accepted (in the mailbox), refused with a 451, or cut off unanswered. */
let smtp: MailReceiver;
let nc: NatsConnection;
/** The receivers of part (b) refuse (503, SMTP 451) until this is true. */
let bAccepting = false;
/** The receivers of part (c) take SLOW_MS to answer while this is true. */
let cSlow = true;
const SLOW_MS = 10_000;
/** What each watched page shows now. */
const pageState = { tall: 'A' as 'A' | 'B', small: 'A' as 'A' | 'B' | '503' };

/** A page of TALL_PX CSS pixels of 8-pixel squares: a full-page screenshot whose comparison takes seconds. */
const TALL_PX = 12_000;
const tallPage = (phase: 'A' | 'B') =>
  `<!doctype html><html><head><style>html,body{margin:0}</style></head><body>` +
  `<div style="height:${TALL_PX}px;background:repeating-conic-gradient(${phase === 'A' ? '#222 0 25%,#eee 0 50%' : '#eee 0 25%,#222 0 50%'}) 0 0/16px 16px"></div></body></html>`;
const smallPage = (price: string) =>
  `<!doctype html><html><body style="margin:0;font:24px sans-serif"><h1>Plans</h1>` +
  `<div style="width:300px;height:80px;background:${price === '$29' ? '#dddddd' : '#ffcc00'}">Pro ${price}</div></body></html>`;

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/tall': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(tallPage(pageState.tall)),
    '/small': (_req, res) => {
      if (pageState.small === '503') return void res.writeHead(503, { 'content-type': 'text/html' }).end('<h1>Service Unavailable</h1>');
      res.writeHead(200, { 'content-type': 'text/html' }).end(smallPage(pageState.small === 'A' ? '$29' : '$39'));
    },
  });
  smtp = await startMailReceiver({
    name: 'monitoring-kill',
    answer: (to) => {
      // (c): answered later, accepted only if the client is still there to be told.
      if (to.some((a) => a.startsWith('c-')) && cSlow) return { delayMs: SLOW_MS };
      return bAccepting || !to.some((a) => a.startsWith('b-')) ? 'accept' : 'refuse';
    },
  });
  [stack, receiver] = await Promise.all([
    startTestStack({
      env: {
        ALLOW_PRIVATE_TARGETS: '1',
        PLAN_SCALE_RATE_LIMIT: '100000',
        SMTP_URL: smtp.url,
        SMTP_FROM: 'Monitor <monitor@example.test>',
        // Attempts every few seconds, for longer than the test runs: nothing is given up while a receiver refuses.
        WEBHOOK_RETRY_SCHEDULE: ['1s', ...Array<string>(150).fill('3s')].join(','),
        // A slow machine's tall comparison is never cut short: the kill is what interrupts it.
        SCHEDULER_COMPARE_TIMEOUT_MS: '180000',
      },
    }),
    startWebhookReceiver({
      secret: () => stack.demo.secretKey,
      answer: (_n, req) => {
        const path = req.url ?? '';
        if (path.startsWith('/b/') && !bAccepting) return { status: 503 };
        if (path.startsWith('/c/') && cSlow) return { status: 200, delayMs: SLOW_MS };
        return { status: 200 };
      },
    }),
  ]);
  nc = await connectNats({ servers: stack.natsUrl, name: 'monitoring-kill-test' });
}, 240_000);

afterAll(async () => {
  await nc?.close();
  await Promise.all([receiver?.close(), fixture?.close(), smtp?.close()]);
  await stack?.stop();
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });
const notifyOf = (prefix: string) => [
  { type: 'slack', url: `${receiver.url}/${prefix}/slack` },
  { type: 'discord', url: `${receiver.url}/${prefix}/discord` },
  { type: 'teams', url: `${receiver.url}/${prefix}/teams` },
  { type: 'email', to: `${prefix}-watcher@example.test` },
];
const CHANNELS = ['hooks', 'slack', 'discord', 'teams'] as const;

const createTask = async (prefix: string, query: string, alertAfterFailures: number) => {
  const res = await stack.call('POST', '/v1/tasks', {
    headers: key(),
    json: {
      name: `kill ${prefix}`,
      api: 'screenshot',
      query: `${query}&webhook_url=${encodeURIComponent(`${receiver.url}/${prefix}/hooks`)}`,
      frequency: 'every_month',
      // Runs only when asked for (POST /v1/tasks/{id}/runs).
      enabled: false,
      monitor: { mode: 'visual', confirm: false, alert_after_failures: alertAfterFailures, notify: notifyOf(prefix) },
    },
  });
  if (res.status !== 201) throw new Error(`POST /v1/tasks answered ${res.status}: ${res.body.toString()}`);
  return res.json<{ id: number }>().id;
};
/** The task's runs, or none while the scheduler is away (killed, restarting). */
const runsOf = async (id: number): Promise<Run[]> => {
  const res = await stack.call('GET', `/v1/tasks/${id}/runs`, { headers: key() }).catch(() => undefined);
  return res?.status === 200 ? res.json<{ runs: Run[] }>().runs : [];
};
const startRun = async (id: number): Promise<string> => {
  let runId = '';
  // The scheduler may be restarting: asked again until it answers.
  await until(
    async () => {
      const res = await stack.call('POST', `/v1/tasks/${id}/runs`, { headers: key() }).catch(() => undefined);
      if (res?.status === 202) runId = res.json<{ id: string }>().id;
      return runId !== '';
    },
    60_000,
    `a run of task ${id} started`,
    500,
  );
  return runId;
};
/** A run is over when its render failed, or when it was compared. */
const settled = (r: Run | undefined) => !!r && (r.status === 'failed' || (r.status === 'succeeded' && r.change !== null));
const runUntilSettled = async (id: number, runId: string): Promise<Run> => {
  let run: Run | undefined;
  await until(async () => settled((run = (await runsOf(id)).find((r) => r.id === runId))), 180_000, `run ${runId} settled`, 1_000);
  return run!;
};

/** No message is left to handle or waiting for a redelivery, in the consumers that record, compare and announce. */
const quiet = async () => {
  const jsm = await jetstreamManager(nc);
  for (const { stream, config } of [SCHEDULER_TASK_RUNS_CONSUMER, SCHEDULER_RUN_COMPARISONS_CONSUMER, WEBHOOK_TASK_CHANGES_CONSUMER]) {
    const info = await jsm.consumers.info(stream, config.durable_name);
    if (info.num_pending > 0 || info.num_ack_pending > 0) return false;
  }
  return true;
};

/** The delivery's id as its webhook-id header carries it (an id with a dot, a channel's, goes as `=` and its base64url). */
const webhookIdOf = (w: ReceivedWebhook) => {
  const header = String(w.headers['webhook-id']);
  return header.startsWith('=') ? Buffer.from(header.slice(1), 'base64url').toString('utf8') : header;
};
const acceptedAt = (prefix: string, channel: string) => receiver.accepted().filter((w) => w.path === `/${prefix}/${channel}`);
const mailsTo = (prefix: string) => smtp.mails.filter((m) => m.to.includes(`${prefix}-watcher@example.test`));
/** How many times each webhook-id (or mail subject) was accepted. */
const countBy = <T>(items: T[], keyOf: (item: T) => string) =>
  items.reduce<Record<string, number>>((acc, item) => ({ ...acc, [keyOf(item)]: (acc[keyOf(item)] ?? 0) + 1 }), {});

describe('When the scheduler is killed with SIGKILL while it compares a run', () => {
  let taskId: number;
  const runs: Run[] = [];
  const kills: { runId: string; pid: number; at: number }[] = [];

  /** Waits until `runId` rendered and its comparison is under way (succeeded, not yet compared), then kills the scheduler. */
  const killWhileComparing = async (runId: string) => {
    let seen: Run | undefined;
    await until(
      async () => {
        seen = (await runsOf(taskId)).find((r) => r.id === runId);
        return !!seen && seen.status !== 'running';
      },
      180_000,
      `run ${runId} rendered`,
      100,
    );
    if (seen!.status !== 'succeeded' || seen!.change !== null) {
      throw new Error(`run ${runId} was over before the kill: ${JSON.stringify({ status: seen!.status, change: seen!.change?.status })}`);
    }
    const scheduler = stack.processes.find((p) => p.name === 'scheduler')!;
    const pid = scheduler.process.pid!;
    await scheduler.kill();
    kills.push({ runId, pid, at: Date.now() });
  };

  beforeAll(async () => {
    taskId = await createTask('a', `url=${encodeURIComponent(`${fixture.origin}/tall`)}&format=png&full_page=true`, 3);
    pageState.tall = 'A';
    runs.push(await runUntilSettled(taskId, await startRun(taskId)));
    for (const phase of ['B', 'A'] as const) {
      pageState.tall = phase;
      const runId = await startRun(taskId);
      await killWhileComparing(runId);
      runs.push(await runUntilSettled(taskId, runId));
    }
    // Both changes reach every channel, then nothing is left to compare or deliver (room for a duplicate).
    await until(() => CHANNELS.every((c) => acceptedAt('a', c).length >= 2) && mailsTo('a').length >= 2, 120_000, 'both changes announced', 500);
    await until(quiet, 120_000, 'the comparing and announcing consumers idle', 1_000);
    for (const [i, kill] of kills.entries()) {
      console.log(`[monitoring-kill] scheduler killed during run ${kill.runId}'s comparison; compared ${runs[i + 1]!.change!.compared * 1_000 - kill.at} ms after the kill (±1 s)`);
    }
  }, 900_000);

  it('should have killed it twice mid-comparison and had it restarted by the supervisor', () => {
    const scheduler = stack.processes.find((p) => p.name === 'scheduler')!;
    expect(kills).toHaveLength(2);
    expect(scheduler.restarts).toBe(2);
    expect(new Set([...kills.map((k) => k.pid), scheduler.process.pid]).size).toBe(3);
  });

  it('should compare each killed run after the restart: baseline, then two changes', () => {
    expect(runs.map((r) => r.change?.status)).toEqual(['baseline', 'changed', 'changed']);
    for (const [i, kill] of kills.entries()) {
      const change = runs[i + 1]!.change!;
      // Recorded by the restarted scheduler: a later second than the kill.
      expect(change.compared * 1_000, `run ${kill.runId}`).toBeGreaterThan(kill.at);
      expect(change.score).toBeGreaterThan(50);
    }
  });

  it('should announce each change exactly once on the webhook, Slack, Discord and Teams', () => {
    const ids = runs.slice(1).map((r) => `change-${r.id}`);
    for (const channel of CHANNELS) {
      const got = acceptedAt('a', channel);
      // Each as received: no deduplication by the test.
      expect(got, channel).toHaveLength(2);
      expect(receiver.received.filter((w) => w.path === `/a/${channel}`), `${channel}: every request`).toHaveLength(2);
      if (channel === 'hooks') {
        expect(got.map(webhookIdOf).sort()).toEqual([...ids].sort());
        expect(got.every((w) => w.standardOk && w.plainOk)).toBe(true);
      } else {
        // Each channel's delivery has an id of its own, derived from the announcement's.
        for (const id of ids) expect(got.filter((w) => webhookIdOf(w).startsWith(`${id}.`)), `${channel} ${id}`).toHaveLength(1);
        for (const run of runs.slice(1)) expect(got.filter((w) => w.body.includes(run.change!.diff!)), `${channel} ${run.id}`).toHaveLength(1);
      }
    }
  });

  it('should mail each change exactly once through the SMTP server', () => {
    const got = mailsTo('a');
    expect(got).toHaveLength(2);
    expect(got.every((m) => m.accepted)).toBe(true);
    for (const run of runs.slice(1)) expect(got.filter((m) => m.mail.text?.includes(run.change!.diff!)), run.id).toHaveLength(1);
  });
});

describe('When the webhook dispatcher is killed with SIGKILL while every announcement waits for a refusing receiver', () => {
  let taskId: number;
  const runs: Run[] = [];
  let killedPid = 0;
  /** The announcements' webhook-ids: the failing episode's start and end, then the change. */
  let ids: string[] = [];

  beforeAll(async () => {
    taskId = await createTask('b', `url=${encodeURIComponent(`${fixture.origin}/small`)}&format=png`, 2);
    for (const state of ['A', '503', '503', 'A', 'B'] as const) {
      pageState.small = state;
      runs.push(await runUntilSettled(taskId, await startRun(taskId)));
    }
    ids = [`failing-${runs[2]!.id}`, `recovered-${runs[2]!.id}`, `change-${runs[4]!.id}`];
    // Each announcement tried and refused on every channel: all pending, each its next attempt scheduled.
    const refused = (channel: string) => new Set(receiver.received.filter((w) => w.path === `/b/${channel}` && w.status === 503).map(webhookIdOf)).size;
    await until(
      () => CHANNELS.every((c) => refused(c) === 3) && new Set(mailsTo('b').filter((m) => !m.accepted).map((m) => m.mail.subject)).size === 3,
      120_000,
      'every announcement refused once on every channel',
      250,
    );
    const dispatcher = stack.processes.find((p) => p.name === 'webhook-dispatcher')!;
    killedPid = dispatcher.process.pid!;
    await dispatcher.kill();
    // The receivers come back while the dispatcher restarts.
    bAccepting = true;
    const killedAt = Date.now();
    await until(() => CHANNELS.every((c) => acceptedAt('b', c).length >= 3) && mailsTo('b').filter((m) => m.accepted).length >= 3, 180_000, 'every announcement delivered', 500);
    const refusals = receiver.received.filter((w) => w.path.startsWith('/b/') && w.status === 503).length + mailsTo('b').filter((m) => !m.accepted).length;
    console.log(`[monitoring-kill] dispatcher killed with 15 deliveries pending (${refusals} refused attempts); all delivered ${Date.now() - killedAt} ms after the kill`);
    await until(quiet, 120_000, 'the comparing and announcing consumers idle', 1_000);
  }, 900_000);

  it('should have had the dispatcher restarted by the supervisor', () => {
    const dispatcher = stack.processes.find((p) => p.name === 'webhook-dispatcher')!;
    expect(dispatcher.restarts).toBe(1);
    expect(dispatcher.process.pid).not.toBe(killedPid);
  });

  it('should have made the announcements: failing after the second 503, recovered, then one change', () => {
    expect(runs.map((r) => r.change?.status ?? r.status)).toEqual(['baseline', 'failed', 'failed', 'unchanged', 'changed']);
  });

  it('should deliver each announcement exactly once to the webhook, Slack, Discord and Teams, after the refusals', () => {
    for (const channel of CHANNELS) {
      const got = acceptedAt('b', channel);
      expect(got, channel).toHaveLength(3);
      const perId = countBy(got, webhookIdOf);
      expect(Object.values(perId), channel).toEqual([1, 1, 1]);
      if (channel === 'hooks') {
        expect(Object.keys(perId).sort()).toEqual([...ids].sort());
        expect(got.map((w) => JSON.parse(w.body).type).sort()).toEqual(['task.changed', 'task.failing', 'task.recovered']);
        expect(got.every((w) => w.standardOk && w.plainOk)).toBe(true);
      } else {
        for (const id of ids) expect(Object.keys(perId).filter((k) => k.startsWith(`${id}.`)), `${channel} ${id}`).toHaveLength(1);
      }
      // Pending across the kill: each accepted attempt came after at least one refused attempt of the same id.
      for (const w of got) {
        const before = receiver.received.filter((r) => r.path === w.path && webhookIdOf(r) === webhookIdOf(w) && r.n < w.n);
        expect(before.length, `${channel} ${webhookIdOf(w)}`).toBeGreaterThan(0);
        expect(before.every((r) => r.status === 503 && r.body === w.body)).toBe(true);
      }
    }
  });

  it('should mail each announcement exactly once through the SMTP server, after its refusals', () => {
    const accepted = mailsTo('b').filter((m) => m.accepted);
    for (const words of ['is failing', 'recovered', 'changed']) {
      expect(accepted.filter((m) => m.mail.subject?.includes(words)), words).toHaveLength(1);
    }
    expect(Object.values(countBy(accepted, (m) => m.mail.subject ?? ''))).toEqual([1, 1, 1]);
    const refusedSubjects = new Set(mailsTo('b').filter((m) => !m.accepted).map((m) => m.mail.subject));
    for (const m of accepted) expect(refusedSubjects.has(m.mail.subject)).toBe(true);
  });
});

describe('When the webhook dispatcher is killed with SIGKILL while it waits for slow receivers to answer', () => {
  let taskId: number;
  const runs: Run[] = [];
  let killedAt = 0;
  let changeId = '';
  const requestsAt = (channel: string) => receiver.received.filter((w) => w.path === `/c/${channel}`);

  beforeAll(async () => {
    taskId = await createTask('c', `url=${encodeURIComponent(`${fixture.origin}/small`)}&format=png`, 3);
    for (const state of ['A', 'B'] as const) {
      pageState.small = state;
      runs.push(await runUntilSettled(taskId, await startRun(taskId)));
    }
    changeId = `change-${runs[1]!.id}`;
    // Every channel's request received, none answered yet (the receivers take SLOW_MS): then the kill.
    await until(() => CHANNELS.every((c) => requestsAt(c).length === 1) && mailsTo('c').length === 1, 60_000, 'every channel sent to', 50);
    const dispatcher = stack.processes.find((p) => p.name === 'webhook-dispatcher')!;
    await dispatcher.kill();
    killedAt = Date.now();
    cSlow = false;
    await until(() => CHANNELS.every((c) => requestsAt(c).length >= 2) && mailsTo('c').some((m) => m.accepted), 180_000, 'every channel sent to again', 500);
    await until(quiet, 120_000, 'the comparing and announcing consumers idle', 1_000);
    // The held answers (SLOW_MS) are over.
    await new Promise((r) => setTimeout(r, Math.max(0, killedAt + SLOW_MS + 1_000 - Date.now())));
    console.log(`[monitoring-kill] dispatcher killed with 5 sends in flight; sent again ${Math.min(...CHANNELS.map((c) => requestsAt(c)[1]!.at)) - killedAt} ms after the kill`);
  }, 900_000);

  it('should have announced the change', () => {
    expect(runs.map((r) => r.change?.status)).toEqual(['baseline', 'changed']);
  });

  it('should send each HTTP channel the change again, once, with the same webhook-id and body (what docs/api.md allows: dedupe by webhook-id)', () => {
    for (const channel of CHANNELS) {
      const got = requestsAt(channel);
      expect(got, channel).toHaveLength(2);
      expect(got[0]!.at, channel).toBeLessThan(killedAt);
      expect(got[1]!.at, channel).toBeGreaterThan(killedAt);
      expect(new Set(got.map(webhookIdOf)).size, channel).toBe(1);
      expect(webhookIdOf(got[0]!).startsWith(changeId), channel).toBe(true);
      expect(got[1]!.body, channel).toBe(got[0]!.body);
      if (channel === 'hooks') expect(got.every((w) => w.standardOk && w.plainOk)).toBe(true);
    }
  });

  it('should put the email in the mailbox exactly once: the session cut by the kill was never accepted', () => {
    const got = mailsTo('c');
    expect(got).toHaveLength(2);
    expect(got.map((m) => m.accepted)).toEqual([false, true]);
    expect(got[1]!.mail.subject).toContain('changed');
    expect(got[1]!.mail.text).toBe(got[0]!.mail.text);
  });
});
