import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  httpsRequest,
  startFixtureServer,
  startTestStack,
  startWebhookReceiver,
  until,
  videoFrames,
  videoInfo,
  type FixtureServer,
  type TestStack,
  type WebhookReceiver,
} from '@app/testkit';

// /v1/screencast through the whole stack over HTTPS: synchronous, async with a signed webhook, and as a
// task's run (asked for now: the run-start pipeline a schedule's occurrence takes, tasks.e2e covers the
// schedule itself); each video decoded by ffprobe.
let stack: TestStack;
let fixture: FixtureServer;
let receiver: WebhookReceiver;

const FRAME = 1 / 25;
/** White at the top, black at the bottom: a frame's brightness says how far the page is scrolled. */
const TALL = '<!doctype html><html><body style="margin:0"><div style="height:6000px;background:linear-gradient(#fff,#000)"></div></body></html>';

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/tall': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(TALL),
  });
  stack = await startTestStack({ env: { ALLOW_PRIVATE_TARGETS: '1' } });
  receiver = await startWebhookReceiver({ secret: () => stack.demo.secretKey });
});

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  await fixture?.close();
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });
const usedQuota = async () => (await stack.call('GET', '/v1/usage', { headers: key() })).json<{ hits: { used: number } }>().hits.used;
const brightness = (f: { bands: number[] }) => f.bands.reduce((a, b) => a + b, 0) / f.bands.length;
const SCROLL = { scenario: 'scroll', scroll_by_amount: 2500, scroll_by_delay: 200, scroll_by_duration: 500, scroll_back_delay: 200 };

describe('GET and POST /v1/screencast', () => {
  describe('When a GET asks for a short mp4 of a page', () => {
    it('should answer the video, of the viewport size and duration, for one render of quota', async () => {
      const before = await usedQuota();
      const query = new URLSearchParams({ url: `${fixture.origin}/tall`, duration: '2', viewport_width: '400', viewport_height: '300', metadata_hash: 'true' });
      const res = await stack.call('GET', `/v1/screencast?${query}`, { headers: key() });
      expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
      expect(res.headers['content-type']).toBe('video/mp4');
      expect(res.headers['x-service-metadata-hash']).toMatch(/^[0-9a-f]{64}$/);
      const info = await videoInfo(res.body);
      expect(info).toMatchObject({ brand: 'isom', codec: 'h264', width: 400, height: 300 });
      expect(Math.abs(info.durationSeconds - 2)).toBeLessThanOrEqual(FRAME);
      await until(async () => (await usedQuota()) === before + 1, 10_000, 'one render of quota');
    });
  });

  describe('When a parameter is out of range', () => {
    it('should answer 400 naming it', async () => {
      const res = await stack.call('POST', '/v1/screencast', {
        headers: key(),
        json: { url: `${fixture.origin}/tall`, duration: 31, scenario: 'scroll', scroll_easing: 'bounce' },
      });
      expect(res.status).toBe(400);
      expect(res.json<{ details: { parameter: string }[] }>().details.map((d) => d.parameter).sort()).toEqual(['duration', 'scroll_easing']);
    });
  });

  describe('When a scroll screencast is asked for with async=true and a webhook', () => {
    it('should deliver a signed webhook naming a webm file that scrolls and ends at the top', async () => {
      const res = await stack.call('POST', '/v1/screencast', {
        headers: key(),
        json: { url: `${fixture.origin}/tall`, format: 'webm', duration: 4, viewport_width: 320, viewport_height: 240, ...SCROLL, async: true, webhook_url: `${receiver.url}/hooks/cast` },
      });
      expect(res.status, res.body.toString()).toBe(202);
      const { id } = res.json<{ id: string }>();
      await until(() => receiver.accepted().length === 1, 60_000, 'webhook delivery');
      const delivery = receiver.received[0]!;
      expect(delivery.standardOk).toBe(true);
      const body = JSON.parse(delivery.body) as { id: string; status: string; format: string; file: string; size: number };
      expect(body).toMatchObject({ id, status: 'succeeded', format: 'webm' });

      const file = await stack.call('GET', new URL(body.file).pathname);
      expect(file.status).toBe(200);
      expect(file.headers['content-type']).toBe('video/webm');
      expect(file.body.length).toBe(body.size);
      const info = await videoInfo(file.body);
      expect(info).toMatchObject({ docType: 'webm', codec: 'vp9', width: 320, height: 240 });
      expect(Math.abs(info.durationSeconds - 4)).toBeLessThanOrEqual(FRAME);
      const frames = (await videoFrames(file.body, { perSecond: 5 })).map(brightness);
      expect(Math.min(...frames)).toBeLessThan(frames[0]! - 100);
      expect(Math.abs(frames.at(-1)! - frames[0]!)).toBeLessThan(3);
    });
  });

  describe('When a task that records a scroll screencast is run', () => {
    it('should run it and keep the video as the run file', async () => {
      const hitsBefore = fixture.hits('/tall');
      const query = new URLSearchParams({ url: `${fixture.origin}/tall`, format: 'mov', duration: '3', viewport_width: '320', viewport_height: '240', ...SCROLL });
      const created = await stack.call('POST', '/v1/tasks', {
        headers: key(),
        json: { name: 'Scroll video', api: 'screencast', query: query.toString(), frequency: 'every_month', enabled: false },
      });
      expect(created.status, created.body.toString()).toBe(201);
      const task = created.json<{ id: number; api: string }>();
      expect(task.api).toBe('screencast');
      const started = await stack.call('POST', `/v1/tasks/${task.id}/runs`, { headers: key() });
      expect(started.status, started.body.toString()).toBe(202);
      type Run = { status: string; file: string | null; error: unknown };
      const runs = async () => {
        const res = await stack.call('GET', `/v1/tasks/${task.id}/runs`, { headers: key() });
        return res.status === 200 ? res.json<{ runs: Run[] }>().runs : [];
      };
      // The page is loaded by the run; then its outcome is polled gently (reads count against the rate limit).
      await until(() => fixture.hits('/tall') > hitsBefore, 60_000, 'the run to load its page');
      await until(
        async () => (await new Promise((r) => setTimeout(r, 500)), (await runs()).some((r) => r.status !== 'running')),
        60_000,
        'the outcome of the run',
      );
      const run = (await runs()).find((r) => r.status !== 'running')!;
      expect(run).toMatchObject({ status: 'succeeded', error: null });
      await stack.call('DELETE', `/v1/tasks/${task.id}`, { headers: key() });

      const file = await httpsRequest(run.file!, { ca: stack.certPem, servername: 'localhost' });
      expect(file.status).toBe(200);
      expect(file.headers['content-type']).toBe('video/quicktime');
      const info = await videoInfo(file.body);
      expect(info).toMatchObject({ brand: 'qt  ', codec: 'h264', width: 320, height: 240 });
      expect(Math.abs(info.durationSeconds - 3)).toBeLessThanOrEqual(FRAME);
      const frames = (await videoFrames(file.body, { perSecond: 5 })).map(brightness);
      expect(Math.min(...frames)).toBeLessThan(frames[0]! - 100);
    });
  });
});
