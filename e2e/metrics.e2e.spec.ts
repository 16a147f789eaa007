import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrapeMetrics, startTestStack, startWebhookReceiver, until, type Scrape, type TestStack, type WebhookReceiver } from '@app/testkit';

// Each service's /metrics (its operations port), scraped before and after the traffic the test sends.
let stack: TestStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  stack = await startTestStack({ env: { ALLOW_PRIVATE_TARGETS: '1', RENDERER_CONCURRENCY: '3' } });
  receiver = await startWebhookReceiver({ secret: () => stack.demo.secretKey });
});

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });
const scrapeAll = async () =>
  Object.fromEntries(await Promise.all(Object.entries(stack.opsUrls).map(async ([name, url]) => [name, await scrapeMetrics(`${url}/metrics`)] as const))) as Record<
    string,
    Scrape
  >;

describe('GET /metrics', () => {
  describe('When every service is scraped', () => {
    it('should answer Prometheus text that a parser reads, with the documented families', async () => {
      const scrapes = await scrapeAll();
      expect(Object.keys(scrapes).sort()).toEqual(['auth-quota', 'edge-http', 'renderer-1', 'scheduler', 'webhook-dispatcher']);
      for (const scrape of Object.values(scrapes)) expect(Object.keys(scrape.families).length).toBeGreaterThan(0);
      const renderer = scrapes['renderer-1']!;
      expect(renderer.family('render_pool_slots')?.type).toBe('gauge');
      expect(renderer.total('render_pool_slots')).toBe(3);
      expect(renderer.family('render_pool_slots_busy')?.type).toBe('gauge');
      expect(renderer.family('render_queue_depth')?.type).toBe('gauge');
      expect(renderer.family('render_browser_restarts_total')?.type).toBe('counter');
    });
  });

  describe('When traffic goes through the stack', () => {
    it('should move the counters of every service with it', async () => {
      const before = await scrapeAll();
      const renders = await Promise.all(
        [1, 2].map((i) => stack.call('POST', '/v1/screenshot', { headers: key(), json: { html: `<p>${i}</p>` } })),
      );
      for (const r of renders) expect(r.status).toBe(200);
      expect((await stack.call('GET', '/v1/usage', { headers: { 'x-access-key': 'ak_not_a_key' } })).status).toBe(401);
      const async = await stack.call('POST', '/v1/pdf', {
        headers: key(),
        json: { html: '<p>hooked</p>', async: true, webhook_url: `${receiver.url}/metrics-hook` },
      });
      expect(async.status).toBe(202);
      await until(() => receiver.accepted().length === 1, 30_000, 'the webhook');
      const task = await stack.call('POST', '/v1/tasks', {
        headers: key(),
        json: { name: 'metrics', api: 'screenshot', query: 'html=x', frequency: 'every_day', enabled: false },
      });
      expect(task.status).toBeLessThan(300);

      // The dispatcher counts its attempt once the receiver answered.
      await until(async () => (await scrapeMetrics(`${stack.opsUrls['webhook-dispatcher']}/metrics`)).total('webhook_attempts_total', { outcome: 'delivered' }) > 0, 10_000, 'attempt counted');
      const after = await scrapeAll();
      const moved = (service: string, name: string, labels?: Record<string, string>) =>
        after[service]!.total(name, labels) - before[service]!.total(name, labels);

      // edge-http: HTTP server latency by route and status.
      expect(moved('edge-http', 'http_server_request_duration', { http_route: '/v1/screenshot', http_response_status_code: '200' })).toBe(2);
      expect(moved('edge-http', 'http_server_request_duration', { http_route: '/v1/pdf', http_response_status_code: '202' })).toBe(1);
      expect(moved('edge-http', 'http_server_request_duration', { http_route: '/v1/usage', http_response_status_code: '401' })).toBe(1);
      // auth-quota: gRPC latency and status by method, and the refusal by reason.
      expect(moved('auth-quota', 'rpc_server_duration')).toBeGreaterThanOrEqual(4);
      expect(moved('auth-quota', 'quota_refusals_total', { reason: 'access_key_invalid' })).toBe(1);
      // renderer: render duration by operation and outcome.
      expect(moved('renderer-1', 'render_duration', { operation: 'screenshot', outcome: 'succeeded' })).toBe(2);
      expect(moved('renderer-1', 'render_duration', { operation: 'pdf', outcome: 'succeeded' })).toBe(1);
      // webhook-dispatcher: the attempt and its outcome.
      expect(moved('webhook-dispatcher', 'webhook_attempts_total', { outcome: 'delivered' })).toBe(1);
      // scheduler: the task command it served.
      expect(moved('scheduler', 'rpc_server_duration', { rpc_method: 'CreateTask', rpc_grpc_status_code: '0' })).toBe(1);
    });
  });
});
