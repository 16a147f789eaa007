import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { startFixtureServer, startTestStack, startWebhookReceiver, until, type FixtureServer, type TestStack, type WebhookReceiver } from '@app/testkit';
import type { RunChangeResource, TaskRunResource } from '@app/task-resources';

// Change monitoring over HTTPS with the whole stack: real renders of fixture pages in Chromium, the
// scheduler's comparisons, the dispatcher's signed task.changed webhooks. Each run is asked for now
// (`POST /v1/tasks/{id}/runs`, the same run-start pipeline a schedule's occurrence takes; tasks.e2e covers
// firing on the schedule), so four tasks take three runs each in seconds instead of three minutes.

type Run = Pick<TaskRunResource, 'id' | 'status'> & { change: RunChangeResource | null };

let stack: TestStack;
let fixture: FixtureServer;
let receiver: WebhookReceiver;
/** What the watched page shows now (the test changes it between runs). */
let price = '$29';
let bannerRequests = 0;
let flickerRequests = 0;

/** The watched element: a fixed box, whose colour and text change with the price. */
const PRICE_BOX = { x: 600, y: 400, width: 200, height: 60 };
const page = (body: string) => `<!doctype html><html><body style="margin:0;font:16px sans-serif">
  <h1 style="margin:20px">Plans</h1>${body}</body></html>`;
const priceBox = (p: string) =>
  `<div id="price" style="position:absolute;left:${PRICE_BOX.x}px;top:${PRICE_BOX.y}px;width:${PRICE_BOX.width}px;height:${PRICE_BOX.height}px;` +
  `background:${p === '$29' ? '#dddddd' : '#ffcc00'}">Pro ${p}</div>`;

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/pricing': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(page(priceBox(price))),
    // A banner that rotates on every load (another colour, another text).
    '/banner': (_req, res) => {
      const n = bannerRequests++;
      const banner = `<div class="banner" style="height:80px;background:hsl(${(n * 97) % 360},80%,50%)">Offer ${n}</div>`;
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(`${banner}${priceBox('$29')}`));
    },
    // Shows a different price on its second load only (a half-loaded page, say).
    '/flicker': (_req, res) => {
      const n = flickerRequests++;
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(priceBox(n === 1 ? '$99' : '$29')));
    },
  });
  // Receivers on loopback take plain HTTP only with ALLOW_PRIVATE_TARGETS.
  [stack, receiver] = await Promise.all([
    startTestStack({ env: { ALLOW_PRIVATE_TARGETS: '1' } }),
    startWebhookReceiver({ secret: () => stack.demo.secretKey }),
  ]);
});

afterAll(async () => {
  await Promise.all([receiver?.close(), fixture?.close()]);
  await stack?.stop();
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });
const createTask = (name: string, path: string, monitor: unknown, api = 'screenshot') =>
  stack.call('POST', '/v1/tasks', {
    headers: key(),
    json: {
      name,
      api,
      query: `url=${encodeURIComponent(`${fixture.origin}${path}`)}&format=png&webhook_url=${encodeURIComponent(`${receiver.url}/changes/${name}`)}`,
      frequency: 'every_month',
      enabled: false,
      monitor,
    },
  });
const runsOf = async (id: number): Promise<Run[]> => {
  const res = await stack.call('GET', `/v1/tasks/${id}/runs`, { headers: key() });
  if (res.status !== 200) throw new Error(`GET /v1/tasks/${id}/runs answered ${res.status}: ${res.body.toString()}`);
  return res.json<{ runs: Run[] }>().runs;
};
const changesOf = async (id: number): Promise<Run[]> => (await stack.call('GET', `/v1/tasks/${id}/changes`, { headers: key() })).json<{ changes: Run[] }>().changes;
const compared = async (id: number, n: number): Promise<Run[]> => {
  let runs: Run[] = [];
  // Polled slowly: every call counts against the account's rate limit.
  await until(async () => (runs = (await runsOf(id)).filter((r) => r.change)).length >= n, 150_000, `${n} compared runs of task ${id}`, 1_000);
  return runs.reverse();
};
/** Asks for the task's next run now and waits until it is compared (the `n`th compared run). */
const runAndCompare = async (id: number, n: number): Promise<Run[]> => {
  const started = await stack.call('POST', `/v1/tasks/${id}/runs`, { headers: key() });
  expect(started.status, started.body.toString()).toBe(202);
  return compared(id, n);
};
const webhooksTo = (name: string) => receiver.received.filter((w) => w.path === `/changes/${name}`);
const pathOf = (url: string) => new URL(url).pathname;

describe('Change monitoring over HTTPS', () => {
  describe('When a monitor is invalid', () => {
    it.each([
      ['a monitor on a pdf task', 'pdf', { mode: 'visual' }, 'monitor'],
      ['a bad regular expression', 'scrape', { mode: 'text', ignore_text: ['(unclosed'] }, 'monitor.ignore_text[0]'],
      ['a pattern the linear-time engine cannot run', 'scrape', { mode: 'text', ignore_text: ['(?:(?:a|b)*c){1,500}d'] }, 'monitor.ignore_text[0]'],
      ['a threshold out of range', 'screenshot', { mode: 'visual', threshold: 150 }, 'monitor.threshold'],
    ])('should answer 400 for %s, naming %s', async (_what, api, monitor, parameter) => {
      const res = await stack.call('POST', '/v1/tasks', {
        headers: key(),
        json: { name: 'bad', api, query: `url=${encodeURIComponent(`${fixture.origin}/pricing`)}`, frequency: 'every_minute', monitor },
      });
      expect(res.status).toBe(400);
      expect(JSON.stringify(res.json())).toContain(parameter);
    });
  });

  describe('When four monitoring tasks run three times each', () => {
    const ids: Record<string, number> = {};

    beforeAll(async () => {
      for (const [name, path, monitor] of [
        ['watched', '/pricing', { mode: 'visual', confirm: false }],
        ['masked', '/banner', { mode: 'visual', ignore_selectors: ['.banner'], confirm: false }],
        ['unmasked', '/banner', { mode: 'visual', confirm: false }],
        ['confirmed', '/flicker', { mode: 'visual' }],
      ] as const) {
        const res = await createTask(name, path, monitor);
        expect(res.status, res.body.toString()).toBe(201);
        ids[name] = res.json<{ id: number }>().id;
      }
      // The watched page changes after its first run and stays changed.
      const threeRuns = async (name: string) => {
        for (const n of [1, 2, 3]) {
          if (name === 'watched' && n === 2) price = '$39';
          await runAndCompare(ids[name]!, n);
        }
      };
      await Promise.all(Object.keys(ids).map(threeRuns));
      await new Promise((res) => setTimeout(res, 3_000)); // webhooks of the last comparisons
    }, 240_000);

    it('should find the change exactly on the run where the page changed, boxing the changed element', async () => {
      const runs = await compared(ids.watched!, 3);
      expect(runs.slice(0, 3).map((r) => r.change!.status)).toEqual(['baseline', 'changed', 'unchanged']);
      const change = runs[1]!.change!;
      const box = change.boxes[0]!;
      // The box covers the element whose colour and text changed, and not much more.
      expect(box.x).toBeLessThanOrEqual(PRICE_BOX.x + 2);
      expect(box.y).toBeLessThanOrEqual(PRICE_BOX.y + 2);
      expect(box.x + box.width).toBeGreaterThanOrEqual(PRICE_BOX.x + PRICE_BOX.width - 2);
      expect(box.y + box.height).toBeGreaterThanOrEqual(PRICE_BOX.y + PRICE_BOX.height - 2);
      expect(box.width * box.height).toBeLessThan(PRICE_BOX.width * PRICE_BOX.height * 1.2);
      // The diff file is a PNG of the screenshot's size with the changed pixels marked red.
      const diff = await stack.call('GET', pathOf(change.diff!));
      expect(diff.status).toBe(200);
      const { data, info } = await sharp(diff.body).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).toEqual([1280, 1080]);
      const at = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
      expect(at(PRICE_BOX.x + 150, PRICE_BOX.y + 40)).toEqual([255, 0, 0]);
      expect((await changesOf(ids.watched!)).map((r) => r.id)).toEqual([runs[1]!.id]);
    });

    it('should send one signed task.changed webhook for the change, none for the unchanged runs', () => {
      const hooks = webhooksTo('watched');
      expect(hooks).toHaveLength(1);
      expect(hooks[0]).toMatchObject({ standardOk: true, plainOk: true });
      expect(JSON.parse(hooks[0]!.body)).toMatchObject({ type: 'task.changed', task_id: ids.watched, summary: expect.stringContaining('of pixels differ') });
    });

    it('should see no change through a rotating banner masked with ignore_selectors, and see it unmasked', async () => {
      expect((await compared(ids.masked!, 3)).slice(0, 3).map((r) => r.change!.status)).toEqual(['baseline', 'unchanged', 'unchanged']);
      expect((await compared(ids.unmasked!, 3)).slice(0, 3).map((r) => r.change!.status)).toEqual(['baseline', 'changed', 'changed']);
      expect(webhooksTo('masked')).toHaveLength(0);
      expect(webhooksTo('unmasked').length).toBeGreaterThanOrEqual(2);
    });

    it('should absorb a change that is gone on the confirming render', async () => {
      const runs = await compared(ids.confirmed!, 3);
      expect(runs.slice(0, 3).map((r) => r.change!.status)).toEqual(['baseline', 'unchanged', 'unchanged']);
      // The second run's page was rendered twice: once changed, once confirming it was not.
      expect(flickerRequests).toBeGreaterThanOrEqual(4);
      expect(webhooksTo('confirmed')).toHaveLength(0);
    });
  });
});
