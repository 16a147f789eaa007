import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  accountsAdmin,
  holdRoute,
  recordFinishedRenders,
  scrapeMetrics,
  startFixtureServer,
  startTestStack,
  until,
  type FixtureServer,
  type TestAccount,
  type TestStack,
} from '@app/testkit';

// Two edges on two auth-quota replicas, as `npm start` runs them with AUTH_QUOTA_REPLICAS=2: limits,
// quota, renders in flight and key rotation hold across both, and whatever replica dies, no render is
// charged twice or never, and the quota is never exceeded.
let stack: TestStack;
let fixture: FixtureServer;
let admin: ReturnType<typeof accountsAdmin>;
let finished: Awaited<ReturnType<typeof recordFinishedRenders>>;
const hold = holdRoute();

beforeAll(async () => {
  fixture = await startFixtureServer({ '/hold': hold.handler });
  stack = await startTestStack({
    edges: 2,
    authQuotaReplicas: 2,
    renderers: 1,
    env: {
      ALLOW_PRIVATE_TARGETS: '1',
      // An account may have in flight at most the fleet's slots minus a quarter kept for others: 40 slots
      // let the growth account below have its 30 and the scale account its 25.
      RENDERER_CONCURRENCY: '40',
      // growth: quota 10 (the race below); basic: 5 requests a minute; free: 2 renders in flight;
      // scale: quota 20 (the async renders that outlive a replica).
      PLAN_GROWTH_QUOTA: '10',
      PLAN_GROWTH_RATE_LIMIT: '1000',
      PLAN_GROWTH_RENDERS_IN_FLIGHT: '30',
      PLAN_BASIC_RATE_LIMIT: '5',
      PLAN_FREE_RATE_LIMIT: '1000',
      PLAN_SCALE_QUOTA: '20',
      PLAN_SCALE_RATE_LIMIT: '1000',
      // Admission is the subject here, not load shedding: a burst queued behind one renderer waits
      // for it instead of being answered 503 renderer_unavailable after the default 3 s.
      EDGE_RENDER_START_TIMEOUT_MS: '60000',
    },
  });
  admin = accountsAdmin(stack.authQuotaAddress);
  finished = await recordFinishedRenders(stack.natsUrl);
});

afterAll(async () => {
  await finished?.close();
  admin?.close();
  await stack?.stop();
  await fixture?.close();
});

const keyOf = (account: TestAccount) => ({ 'x-access-key': account.accessKey });

/** The running process of auth-quota replica `replica` (0 or 1). */
const authQuotaProcess = (replica: number) => {
  const name = replica === 0 ? 'auth-quota' : `auth-quota-${replica + 1}`;
  return stack.processes.filter((p) => p.name === name && p.process.exitCode === null && p.process.signalCode === null).at(-1)!;
};
/** Renders held, then finished on a loaded machine: more than the default e2e test time. */
const LONG_TEST_MS = 420_000;

/** Runs `test`, then starts again every auth-quota replica the test killed. */
const thenRelaunch = async (test: () => Promise<void>) => {
  try {
    await test();
  } finally {
    for (const replica of [0, 1]) if (!authQuotaProcess(replica)) await stack.relaunch('auth-quota', replica);
  }
};
/** A cheap render (a scrape of the fixture's home page): the tests are about admission, not about Chromium. */
const render = (account: TestAccount, i: number, edge = i % 2) =>
  stack.call('POST', '/v1/scrape', { edge, headers: keyOf(account), json: { url: `${fixture.origin}/?i=${i}` } });

const usageOf = async (account: TestAccount) => {
  const res = await stack.call('GET', '/v1/usage', { headers: keyOf(account) });
  expect(res.status, res.body.toString()).toBe(200);
  return res.json() as { hits: { quota: number; used: number; remaining: number }; renders: { limit: number; in_flight: number } };
};

/** Each answer's status, and for an error its code: what a failed count shows. */
const describeAnswers = (results: { status: number; body: Buffer }[]) =>
  results.map((r) => (r.status < 400 ? String(r.status) : `${r.status} ${r.body.toString().slice(0, 200)}`)).join(', ');

/** Requests the two edges admitted themselves, from rate leases. */
const leased = async () => {
  const scrapes = await Promise.all(['edge-http', 'edge-http-2'].map((name) => scrapeMetrics(`${stack.opsUrls[name]}/metrics`)));
  return scrapes.reduce((n, scrape) => n + scrape.total('admissions_leased_total'), 0);
};

/** An account's leases are held back for a second after any change of it, its creation included. */
const pastAccountChange = () => new Promise((r) => setTimeout(r, 1_100));

/** Waits for the start of a clock minute when too little of this one is left (rate windows are the minute). */
const withinOneMinute = async () => {
  const second = new Date().getUTCSeconds();
  if (second > 40) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
};

describe('Quota over two edges and two auth-quota replicas', () => {
  describe.each([
    ['both replicas up', false],
    ['one replica SIGKILLed mid-burst', true],
  ])('When 30 renders race for a quota of 10 (%s)', (_label, kill) => {
    it('should answer exactly 10 × 200 and 20 × 423, and charge exactly 10', () =>
      thenRelaunch(async () => {
        const account = await admin.create('growth');
        const burst = Promise.all(Array.from({ length: 30 }, (_, i) => render(account, i)));
        if (kill) {
          await new Promise((r) => setTimeout(r, 30));
          await authQuotaProcess(1).kill({ restart: false });
        }
        const results = await burst;
        const statuses = results.map((r) => r.status);
        const seen = describeAnswers(results);
        expect(statuses.filter((s) => s === 200), seen).toHaveLength(10);
        expect(statuses.filter((s) => s === 423), seen).toHaveLength(20);
        await until(async () => (await usageOf(account)).hits.used === 10, 20_000, 'ten committed renders');
        expect(await usageOf(account)).toMatchObject({ hits: { quota: 10, used: 10, remaining: 0 }, renders: { in_flight: 0 } });
      }),
    );
  });

  describe.each([
    ['both replicas up', false],
    ['one replica SIGKILLed mid-burst', true],
  ])('When 15 renders race for a rate limit of 5 a minute (%s)', (_label, kill) => {
    it('should answer exactly 5 × 2xx and 429 with Retry-After to the rest', () =>
      thenRelaunch(async () => {
        const account = await admin.create('basic');
        await withinOneMinute();
        const burst = Promise.all(Array.from({ length: 15 }, (_, i) => render(account, i)));
        if (kill) {
          await new Promise((r) => setTimeout(r, 30));
          await authQuotaProcess(0).kill({ restart: false });
        }
        const results = await burst;
        const statuses = results.map((r) => r.status);
        const seen = describeAnswers(results);
        expect(statuses.filter((s) => s >= 200 && s < 300), seen).toHaveLength(5);
        expect(statuses.filter((s) => s === 429), seen).toHaveLength(10);
        const refused = results.find((r) => r.status === 429)!;
        expect(refused.json()).toMatchObject({ code: 'rate_limited' });
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      }),
    );
  });
});

describe('Cache hits of one key on two edges (rate leases)', () => {
  describe('When one key floods both edges with cache hits past its rate limit (1,000 a minute)', () => {
    it('should admit most at the edges, never more than the limit, and every unit once the leases have ended', async () => {
      const account = await admin.create('scale');
      await pastAccountChange();
      await withinOneMinute();
      const hit = (edge: number) => stack.call('POST', '/v1/scrape', { edge, headers: keyOf(account), json: { url: `${fixture.origin}/?leases`, cache: true } });
      expect((await hit(0)).status).toBe(200);
      const leasedBefore = await leased();

      const answers: Awaited<ReturnType<typeof hit>>[] = [];
      for (let round = 0; round < 50; round++) answers.push(...(await Promise.all(Array.from({ length: 24 }, (_, i) => hit(i % 2)))));
      const admitted = answers.filter((a) => a.status === 200);
      expect(answers.filter((a) => a.status !== 200 && a.status !== 429).map((a) => a.status)).toEqual([]);
      expect(admitted.every((a) => a.headers['x-service-cache'] === 'HIT')).toBe(true);
      // The miss took one unit of the window: 999 are left for the hits, and no more are admitted.
      expect(admitted.length).toBeLessThanOrEqual(999);
      expect(admitted.length).toBeGreaterThan(900);
      expect((await leased()) - leasedBefore).toBeGreaterThan(admitted.length / 2);

      // Units a lease did not spend go back when it ends (a second): then the window admits exactly its rest.
      await new Promise((r) => setTimeout(r, 2_500));
      let more = 0;
      while (more < 1_000 && (await hit(0)).status === 200) more += 1;
      expect(1 + admitted.length + more).toBe(1_000);
    }, 120_000);
  });
});

describe('Async renders when auth-quota replicas die', () => {
  /** Submits `n` async renders held by the fixture; returns the ids of those accepted (202). */
  const submitHeld = async (account: TestAccount, n: number) => {
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        stack.call('POST', '/v1/scrape', {
          edge: i % 2,
          headers: keyOf(account),
          json: { url: `${fixture.origin}/hold?r=${account.accountId}-${i}`, async: true },
        }),
      ),
    );
    return answers;
  };

  const statusOf = async (account: TestAccount, id: string) => {
    const res = await stack.call('GET', `/v1/renders/${id}`, { headers: keyOf(account) });
    expect(res.status, res.body.toString()).toBe(200);
    return (res.json() as { status: string }).status;
  };

  /**
   * Every render reached succeeded or failed; usage equals the successes exactly; nothing is held open.
   * The renders are awaited on the bus, then their statuses polled once a second and the usage every 250 ms:
   * a poll of 20 statuses every 50 ms would spend the account's 1,000 requests a minute in seconds on a slow machine.
   */
  const expectSettled = async (account: TestAccount, ids: string[]) => {
    await until(() => ids.every((id) => finished.events.some((e) => e.job_id === id)), 240_000, 'every render finished');
    await until(
      async () => (await Promise.all(ids.map((id) => statusOf(account, id)))).every((s) => s === 'succeeded' || s === 'failed'),
      30_000,
      'every render recorded as finished',
      1_000,
    );
    const outcomes = await Promise.all(ids.map((id) => statusOf(account, id)));
    const succeeded = outcomes.filter((s) => s === 'succeeded').length;
    expect(succeeded).toBeGreaterThan(0);
    await until(
      async () => {
        const usage = await usageOf(account);
        return usage.hits.used === succeeded && usage.renders.in_flight === 0;
      },
      30_000,
      'usage settled',
      250,
    );
    await new Promise((r) => setTimeout(r, 1_000));
    const usage = await usageOf(account);
    expect(usage.hits.used).toBe(succeeded);
    expect(usage.hits.used).toBeLessThanOrEqual(usage.hits.quota);
    expect(usage.renders.in_flight).toBe(0);
    expect(usage.hits.remaining).toBe(usage.hits.quota - succeeded);
  };

  describe('When one replica is SIGKILLed with 20 async renders in flight (quota 20, 24 asked)', () => {
    it('should finish every render, charge exactly the successes and never exceed the quota', () =>
      thenRelaunch(async () => {
        hold.reset();
        const account = await admin.create('scale');
        const answers = await submitHeld(account, 24);
        const accepted = answers.filter((a) => a.status === 202);
        expect(answers.map((a) => a.status).sort()).toEqual([...Array(20).fill(202), ...Array(4).fill(423)]);
        await until(() => hold.waiting >= 2, 30_000, 'renders held in the browser');
        await authQuotaProcess(1).kill({ restart: false });
        hold.release();
        await expectSettled(account, accepted.map((a) => (a.json() as { id: string }).id));
        const more = await stack.call('POST', '/v1/scrape', { headers: keyOf(account), json: { url: `${fixture.origin}/`, async: true } });
        expect(more.status).toBe((await usageOf(account)).hits.remaining > 0 ? 202 : 423);
      }),
      LONG_TEST_MS,
    );
  });

  describe('When every replica is SIGKILLed with 20 async renders in flight, then restarted', () => {
    it('should finish every render and charge exactly the successes once they are back', () =>
      thenRelaunch(async () => {
        hold.reset();
        const account = await admin.create('scale');
        const answers = await submitHeld(account, 20);
        expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
        const ids = answers.map((a) => (a.json() as { id: string }).id);
        await until(() => hold.waiting >= 2, 30_000, 'renders held in the browser');
        await Promise.all([authQuotaProcess(0).kill({ restart: false }), authQuotaProcess(1).kill({ restart: false })]);
        hold.release();
        // The renders finish while no auth-quota runs: their outcomes wait on the stream.
        await until(() => ids.every((id) => finished.events.some((e) => e.job_id === id)), 240_000, 'every render finished');
        await stack.relaunch('auth-quota', 0);
        await stack.relaunch('auth-quota', 1);
        await expectSettled(account, ids);
      }),
      LONG_TEST_MS,
    );
  });
});

describe('Key rotation through one replica', () => {
  describe('When a key is rotated through replica A', () => {
    it('should be refused at once by every edge, whichever replica they ask', async () => {
      const account = await admin.create('growth');
      const replicaA = accountsAdmin(stack.authQuotaAddresses[0]!);
      try {
        // Both edges have admitted the key (through both replicas) before.
        for (let i = 0; i < 4; i++) {
          expect((await stack.call('GET', '/v1/devices', { edge: i % 2, headers: keyOf(account) })).status).not.toBe(401);
        }
        const rotated = await replicaA.rotate(account.accountId);
        const old = await Promise.all(
          Array.from({ length: 8 }, (_, i) => stack.call('GET', '/v1/devices', { edge: i % 2, headers: keyOf(account) })),
        );
        expect(old.map((r) => r.status)).toEqual(Array(8).fill(401));
        const fresh = await Promise.all(
          Array.from({ length: 4 }, (_, i) => stack.call('GET', '/v1/devices', { edge: i % 2, headers: { 'x-access-key': rotated.accessKey } })),
        );
        expect(fresh.map((r) => r.status)).toEqual(Array(4).fill(200));
      } finally {
        replicaA.close();
      }
    });
  });

  describe('When a key both edges admit from rate leases (busy cache hits) is rotated', () => {
    it('should be refused at once by every edge, and the new key admitted', async () => {
      const account = await admin.create('growth');
      const replicaA = accountsAdmin(stack.authQuotaAddresses[0]!);
      const hit = (edge: number, accessKey = account.accessKey) =>
        stack.call('POST', '/v1/scrape', { edge, headers: { 'x-access-key': accessKey }, json: { url: `${fixture.origin}/?rotation`, cache: true } });
      try {
        expect((await hit(0)).status).toBe(200);
        await pastAccountChange();
        // Busy on both edges: each holds a lease of the key's window.
        const leasedBefore = await leased();
        for (let round = 0; round < 10; round++) {
          const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => hit(i % 2)));
          expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
        }
        expect(await leased()).toBeGreaterThan(leasedBefore + 40);
        const rotated = await replicaA.rotate(account.accountId);
        const old = await Promise.all(Array.from({ length: 16 }, (_, i) => hit(i % 2)));
        expect(old.map((r) => r.status)).toEqual(Array(16).fill(401));
        const fresh = await Promise.all(Array.from({ length: 4 }, (_, i) => hit(i % 2, rotated.accessKey)));
        expect(fresh.map((r) => r.status)).toEqual(Array(4).fill(200));
      } finally {
        replicaA.close();
      }
    });
  });
});

describe('The dashboard over two auth-quota replicas', () => {
  describe('When the owner signs in on either edge', () => {
    it('should open a session that both edges show, with calls spread over both replicas', async () => {
      const account = await admin.create('growth', 'Replicated owner');
      for (const edge of [0, 1]) {
        const signIn = await stack.call('POST', '/dashboard/api/sign-in', {
          edge,
          json: { access_key: account.accessKey, secret_key: account.secretKey },
        });
        expect(signIn.status, signIn.body.toString()).toBe(200);
        const token = /dashboard_session=([^;]+)/.exec(String(signIn.headers['set-cookie']))![1]!;
        for (const other of [0, 1]) {
          const session = await stack.call('GET', '/dashboard/api/session', { edge: other, headers: { cookie: `dashboard_session=${token}` } });
          expect(session.status, session.body.toString()).toBe(200);
          expect(session.json()).toMatchObject({ access_key: account.accessKey, account: { id: account.accountId } });
        }
      }
    });
  });
});

describe('Renders in flight per account', () => {
  describe('When an account has as many renders in flight as its plan allows (free: 2)', () => {
    it('should answer 429 concurrency_limited to one more while another account renders normally', async () => {
      hold.reset();
      const busy = await admin.create('free');
      const other = await admin.create('growth');
      const held = [0, 1].map((i) =>
        stack.call('POST', '/v1/scrape', { edge: i, headers: keyOf(busy), json: { url: `${fixture.origin}/hold?busy=${i}` } }),
      );
      await until(async () => (await usageOf(busy)).renders.in_flight === 2, 20_000, 'two renders in flight');
      const refused = await render(busy, 99, 0);
      expect(refused.status).toBe(429);
      expect(refused.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests', code: 'concurrency_limited' });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(await usageOf(busy)).toMatchObject({ renders: { limit: 2, in_flight: 2 } });

      // The renderer is not held by the busy account: another account's render answers while its two wait.
      const normal = await render(other, 1, 1);
      expect(normal.status).toBe(200);
      expect(hold.waiting).toBe(2);

      hold.release();
      expect((await Promise.all(held)).map((r) => r.status)).toEqual([200, 200]);
      await until(async () => (await usageOf(busy)).renders.in_flight === 0, 20_000, 'the renders to end');
      expect((await render(busy, 100, 0)).status).toBe(200);
    });
  });
});
