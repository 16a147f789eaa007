import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixtureServer, TestAccount, TestStack } from '@app/testkit';
import { accountsAdmin, imageInfo, startFixtureServer, startTestStack, until } from '@app/testkit';

/**
 * One account keeps sending slow renders (`delay`), as many at once as its plan allows (growth: 10), far
 * more than the renderer's slots: nothing is held back for others, so they all wait for the slots. Another
 * account's render must start about one render later at worst and succeed: a freed slot goes to the
 * account with the fewest renders running. Nothing is shed nor refused but as the busy account's own limit
 * (429 concurrency_limited). The edge's start timeout is raised so that waiting renders are not shed: what
 * is measured is the order the renderer starts them in, seen at the target page (each render loads it
 * once, when it starts).
 */
const BUSY_PARALLEL = 10;
const DELAY_SECONDS = 2;

describe.each([1, 2, 4])('Fair sharing of %i render slot(s)', (slots) => {
  let stack: TestStack;
  let fixture: FixtureServer;
  let admin: ReturnType<typeof accountsAdmin>;

  beforeAll(async () => {
    fixture = await startFixtureServer({
      '/busy': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><body style="background:#0000ff">busy</body>');
      },
      '/other': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><body style="background:#00ff00">other</body>');
      },
    });
    stack = await startTestStack({
      renderers: 1,
      env: {
        ALLOW_PRIVATE_TARGETS: '1',
        RENDERER_CONCURRENCY: String(slots),
        PLAN_GROWTH_RATE_LIMIT: '100000',
        EDGE_RENDER_START_TIMEOUT_MS: '30000',
      },
    });
    admin = accountsAdmin(stack.authQuotaAddress);
  });

  afterAll(async () => {
    admin?.close();
    await stack?.stop();
    await fixture?.close();
  });

  const render = (account: TestAccount, path: string, signal?: AbortSignal) =>
    stack.call('POST', '/v1/screenshot', {
      signal,
      headers: { 'x-access-key': account.accessKey },
      json: { url: `${fixture.origin}${path}`, delay: DELAY_SECONDS, format: 'png', viewport_width: 320, viewport_height: 240 },
    });

  it('should start the other account within about one render and succeed, refusing the busy account nothing but its own limit', async () => {
    const busy = await admin.create('growth', 'busy');
    const other = await admin.create('free', 'other');
    const answers: { status: number; code?: string; body?: string }[] = [];
    let sending = true;
    const giveUp = new AbortController();
    const sender = async () => {
      while (sending) {
        // Once the other account's render is measured, the busy one's renders still queued are given up
        // (with one slot they would take 20 s more), unanswered and unlooked at.
        const res = await render(busy, '/busy', giveUp.signal).catch((err: unknown) => err as Error);
        if (!sending) return;
        if (res instanceof Error) answers.push({ status: 0, body: res.message });
        else {
          const body = res.status === 200 ? undefined : res.body.toString().slice(0, 300);
          answers.push({ status: res.status, code: body ? (JSON.parse(body) as { code?: string }).code : undefined, body });
        }
        if (res instanceof Error || res.status !== 200) await new Promise((r) => setTimeout(r, 300));
      }
    };
    for (let i = 0; i < BUSY_PARALLEL; i++) void sender();
    try {
      // Steady state: the busy account's renders have taken the slots and at least one was replaced.
      await until(
        () => {
          const wrong = answers.find((a) => a.status !== 200 && a.status !== 429 && a.status !== 503);
          if (wrong) throw new Error(`the busy account's render was answered ${wrong.status}: ${wrong.body}`);
          return fixture.hits('/busy') >= slots + 1;
        },
        60_000,
        'the busy account to fill the renderer',
      );
      const busyBefore = fixture.hits('/busy');
      const res = await render(other, '/other');
      expect(res.status, res.body.toString()).toBe(200);
      expect((await imageInfo(res.body)).format).toBe('png');

      // The busy account's renders that started after the other's was sent and before it started:
      // at most one per slot (the renders running when it came each hand their slot on once at most).
      const pages = fixture.requests.map((r) => r.path).filter((p) => p === '/busy' || p === '/other');
      const startedBefore = pages.indexOf('/other');
      const overtaking = pages.slice(busyBefore, startedBefore).filter((p) => p === '/busy').length;
      expect(overtaking).toBeLessThanOrEqual(slots);
    } finally {
      sending = false;
      giveUp.abort();
    }
    // Whatever the busy account was refused until then is its own limit, never shed as if the renderers were down.
    const refusals = answers.filter((a) => a.status !== 200);
    expect(refusals.filter((a) => a.status !== 429 || a.code !== 'concurrency_limited').map((a) => a.body)).toEqual([]);
  }, 240_000);
});
