import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { generate } from 'selfsigned';
import { DockerComposeEnvironment, Wait, type StartedDockerComposeEnvironment } from 'testcontainers';
import { ensureSelfSignedCertificate } from '@app/stack';
import {
  holdRoute,
  httpsRequest,
  imageInfo,
  pixelAt,
  startFixtureServer,
  startOtlpReceiver,
  startWebhookReceiver,
  until,
  videoInfo,
  type FixtureServer,
  type HttpsResponse,
  type WebhookReceiver,
} from '@app/testkit';
import { containersReady, type Containers } from './containers.global-setup.js';

// docker-compose.yml (with docker-compose.test.yml) run by testcontainers on the podman engine the global
// setup provisions in the background (awaited here), from the image infra/Dockerfile builds: every call goes over HTTPS to the edge
// container. The pages, the webhook receiver and the trace receiver run in this process, reached by the
// containers at host.containers.internal.

const { stateDir } = inject('containers');
/** The engine's variables once its background preparation ended, or why containers cannot be had here. */
let containers: Containers = {};
const ROOT = resolve(import.meta.dirname, '..');
const PROJECT = `render-compose-${randomBytes(4).toString('hex')}`;
const HOST = 'host.containers.internal';
const run = promisify(execFile);

const hold = holdRoute();
const TALL = '<!doctype html><body style="margin:0"><div style="height:6000px;background:linear-gradient(#fff,#000)"></div></body>';
let fixture: FixtureServer;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let receiver: WebhookReceiver;
let compose: StartedDockerComposeEnvironment | undefined;
let tlsDir: string;
let certPem: string;
let edgePort: number;
let prometheusPort: number;
let account: { accountId: string; accessKey: string; secretKey: string };
let taskId: number;
let taskTraceId: string;
let edgeRequestsAtStart: number;

const page = (path: string) => `http://${HOST}:${fixture.port}${path}`;
const containerName = (service: string, n = 1) => `${PROJECT}_${service}_${n}`;
const podman = async (...args: string[]) => (await run('podman', args, { encoding: 'utf8' })).stdout.trim();

function call(method: string, path: string, json?: unknown): Promise<HttpsResponse> {
  const headers: Record<string, string> = { 'x-access-key': account.accessKey };
  if (json !== undefined) headers['content-type'] = 'application/json';
  return httpsRequest(`https://127.0.0.1:${edgePort}${path}`, {
    method,
    headers,
    body: json === undefined ? undefined : JSON.stringify(json),
    ca: certPem,
    servername: 'localhost',
  });
}

const usedQuota = async () => (await call('GET', '/v1/usage')).json<{ hits: { used: number } }>().hits.used;

async function prometheus<T>(path: string): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${prometheusPort}${path}`);
  if (!res.ok) throw new Error(`prometheus ${path}: ${res.status}`);
  return ((await res.json()) as { data: T }).data;
}
const promQuery = async (q: string) =>
  (await prometheus<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(`/api/v1/query?query=${encodeURIComponent(q)}`)).result;
const promValue = async (q: string) => Number((await promQuery(q))[0]?.value[1] ?? 0);

/** The Prometheus text of one container's operations port, read from inside the container. */
async function metricsOf(name: string, port: number): Promise<string> {
  const script = `exec 3<>/dev/tcp/127.0.0.1/${port}; printf 'GET /metrics HTTP/1.0\\r\\n\\r\\n' >&3; cat <&3`;
  return podman('exec', name, 'bash', '-c', script);
}
const sampleSum = (text: string, name: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);

/** Warnings and errors the services logged, printed at the end: what to look at when a test failed. */
async function printWarnings(services: string[]) {
  for (const service of services) {
    const names = (await podman('ps', '-a', '--format', '{{.Names}}', '--filter', `name=${PROJECT}_${service}_`)).split('\n').filter(Boolean);
    for (const name of names) {
      const { stdout, stderr } = await run('podman', ['logs', '--tail', '300', name], { encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 });
      const worth = `${stdout}${stderr}`.split('\n').filter((l) => /"level":(40|50|60)/.test(l));
      if (worth.length > 0) console.warn(`--- ${name}\n${worth.slice(-15).map((l) => l.slice(0, 600)).join('\n')}`);
    }
  }
}

const FIVE = ['edge-http', 'auth-quota', 'scheduler', 'renderer', 'webhook-dispatcher'];

describe('docker compose up, through testcontainers (skipped, saying why, where no container engine can be had)', () => {
  beforeAll(async () => {
    const waited = Date.now();
    containers = await containersReady(stateDir, 40 * 60_000);
    console.warn(`[containers] waited ${((Date.now() - waited) / 1000).toFixed(1)} s for the background preparation; ${containers.skip ? `compose tests skip: ${containers.skip}` : 'ready'}`);
    if (containers.skip) return;
    fixture = await startFixtureServer(
      {
        '/page': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Boxed</title><h1>Rendered in a container</h1>'),
        '/tall': (_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(TALL),
        '/hold': hold.handler,
      },
      { listenHost: '0.0.0.0' },
    );
    otlp = await startOtlpReceiver({ listenHost: '0.0.0.0' });
    tlsDir = mkdtempSync(join(tmpdir(), 'compose-tls-'));
    // Webhooks go out over https only: the receiver has a certificate for the name the containers reach
    // it by, and the dispatcher trusts it (NODE_EXTRA_CA_CERTS in docker-compose.test.yml).
    const receiverTls = await generate([{ name: 'commonName', value: HOST }], {
      keySize: 2048,
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: HOST }] }],
    });
    writeFileSync(join(tlsDir, 'webhook-receiver.pem'), receiverTls.cert);
    receiver = await startWebhookReceiver({
      secret: () => account.secretKey,
      tls: { cert: receiverTls.cert, key: receiverTls.private },
      listenHost: '0.0.0.0',
    });
    ({ certPem } = await ensureSelfSignedCertificate(tlsDir));
    // The edge runs as the image's unprivileged user.
    chmodSync(tlsDir, 0o755);
    chmodSync(join(tlsDir, 'key.pem'), 0o644);

    const upStarted = Date.now();
    Object.assign(process.env, { DOCKER_HOST: containers.env!.DOCKER_HOST, TESTCONTAINERS_RYUK_DISABLED: 'true' });
    compose = await new DockerComposeEnvironment(ROOT, ['docker-compose.yml', 'docker-compose.test.yml'])
      .withProjectName(PROJECT)
      .withClientOptions({ executable: { standalone: true, executablePath: 'docker-compose' } })
      .withEnvironment({
        ...containers.env,
        AUTH_QUOTA_MASTER_KEY: randomBytes(32).toString('base64'),
        TLS_DIR: tlsDir,
        EDGE_PUBLISH: '127.0.0.1:',
        PROMETHEUS_PUBLISH: '127.0.0.1:',
        ALLOW_PRIVATE_TARGETS: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint.replace('127.0.0.1', HOST),
      })
      .withWaitStrategy(containerName('edge-http'), Wait.forHealthCheck())
      .withWaitStrategy(containerName('prometheus'), Wait.forLogMessage(/Server is ready to receive web requests/))
      .withStartupTimeout(600_000)
      .up();
    console.warn(`[containers] compose up until the edge is healthy: ${((Date.now() - upStarted) / 1000).toFixed(1)} s`);
    edgePort = compose.getContainer(containerName('edge-http')).getMappedPort(8443);
    prometheusPort = compose.getContainer(containerName('prometheus')).getMappedPort(9090);

    // The first calls after start-up may find a backing service still warming up: the CLI is retried.
    let created: { exitCode: number; output: string; stdout: string } | undefined;
    await until(
      async () => {
        created = await compose!
          .getContainer(containerName('auth-quota'))
          .exec(['node', 'services/auth-quota/dist/entrypoints/cli/admin.js', 'create-account', '--plan', 'scale', '--name', 'compose']);
        return created.exitCode === 0;
      },
      120_000,
      'an account created with the admin CLI in the auth-quota container',
      2_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}: ${created?.output}`);
    });
    const res = JSON.parse(created!.stdout) as { account: { account_id: string }; access_key: string; secret_key: string };
    account = { accountId: res.account.account_id, accessKey: res.access_key, secretKey: res.secret_key };

    // Scheduled now so that its first run falls while the other tests go on.
    const task = await call('POST', '/v1/tasks', {
      name: 'compose',
      api: 'screenshot',
      query: `url=${encodeURIComponent(page('/page'))}&format=png`,
      frequency: 'every_minute',
    });
    expect(task.status, task.body.toString()).toBe(201);
    taskId = task.json<{ id: number }>().id;
    taskTraceId = task.headers['x-service-request-id'] as string;
    edgeRequestsAtStart = await promValue('sum(http_server_request_duration_count{job="edge-http"})');
  }, 50 * 60_000);

  // Where containers cannot be had, every test skips (the reason is printed above).
  beforeEach((ctx) => {
    if (containers.skip !== undefined) ctx.skip();
  });

  afterAll(async () => {
    hold.release();
    if (compose) await printWarnings(['edge-http', 'renderer', 'webhook-dispatcher', 'scheduler']);
    await compose?.down({ removeVolumes: true, timeout: 2_000 });
    await Promise.all([fixture?.close(), otlp?.close(), receiver?.close()]);
    if (tlsDir) rmSync(tlsDir, { recursive: true, force: true });
  });

  describe('When each kind of render is asked of the edge container', () => {
    it('should answer a screenshot, a pdf, a scrape and a screencast (ffprobe reads the video)', async () => {
      const shot = await call('GET', `/v1/screenshot?url=${encodeURIComponent(page('/page'))}&format=png`);
      expect(shot.status, shot.body.toString().slice(0, 300)).toBe(200);
      expect(await imageInfo(shot.body)).toMatchObject({ format: 'png', width: 1280 });

      const pdf = await call('POST', '/v1/pdf', { url: page('/page') });
      expect(pdf.status, pdf.body.toString().slice(0, 300)).toBe(200);
      expect(pdf.body.subarray(0, 5).toString()).toBe('%PDF-');

      const scrape = await call('POST', '/v1/scrape', { url: page('/page'), format: 'md' });
      expect(scrape.status, scrape.body.toString().slice(0, 300)).toBe(200);
      expect(scrape.body.toString()).toContain('Rendered in a container');

      const query = new URLSearchParams({ url: page('/tall'), duration: '2', viewport_width: '400', viewport_height: '300' });
      const video = await call('GET', `/v1/screencast?${query}`);
      expect(video.status, video.body.toString().slice(0, 300)).toBe(200);
      expect(await videoInfo(video.body)).toMatchObject({ codec: 'h264', width: 400, height: 300 });
    });
  });

  describe('When an async render names a webhook', () => {
    it('should deliver a webhook signed with the account secret, and its trace crosses edge, auth-quota, renderer and webhook-dispatcher', async () => {
      const res = await call('POST', '/v1/screenshot', { url: page('/page'), async: true, webhook_url: `${receiver.url.replace('localhost', HOST)}/hook` });
      expect(res.status, res.body.toString()).toBe(202);
      const { id } = res.json<{ id: string }>();
      await until(() => receiver.accepted().length > 0, 90_000, 'the webhook');
      const delivery = receiver.accepted()[0]!;
      expect(delivery.headers['webhook-id']).toBe(id);
      expect({ standardOk: delivery.standardOk, plainOk: delivery.plainOk }).toEqual({ standardOk: true, plainOk: true });

      const traceId = res.headers['x-service-request-id'] as string;
      const services = () => new Set(otlp.byTrace(traceId).map((s) => s.service));
      await until(() => ['edge-http', 'auth-quota', 'renderer', 'webhook-dispatcher'].every((s) => services().has(s)), 60_000, 'spans of four services');
    });
  });

  describe('When an every_minute task was created at start-up', () => {
    it('should run it on the next minute, and the creation trace reaches the scheduler', async () => {
      await until(
        async () => (await call('GET', `/v1/tasks/${taskId}/runs`)).json<{ runs: { status: string }[] }>().runs.some((r) => r.status === 'succeeded'),
        150_000,
        'a succeeded run',
        2_000,
      );
      // Its later runs would be charged to the same account while the usage is counted below.
      expect((await call('DELETE', `/v1/tasks/${taskId}`)).status).toBeLessThan(300);
      const creation = new Set(otlp.byTrace(taskTraceId).map((s) => s.service));
      expect([...creation]).toEqual(expect.arrayContaining(['edge-http', 'scheduler']));
    });
  });

  describe('When the owner asks for a run of a task with a webhook now', () => {
    it("should deliver the run's signed webhook, and that one request's trace crosses all five services", async () => {
      const hook = `${receiver.url.replace('localhost', HOST)}/task-run`;
      const created = await call('POST', '/v1/tasks', {
        name: 'asked for now',
        api: 'screenshot',
        query: `url=${encodeURIComponent(page('/page'))}&format=png&webhook_url=${encodeURIComponent(hook)}`,
        frequency: 'every_month',
        enabled: false,
      });
      expect(created.status, created.body.toString()).toBe(201);
      const task = created.json<{ id: number }>().id;
      const res = await call('POST', `/v1/tasks/${task}/runs`);
      expect(res.status, res.body.toString()).toBe(202);
      const run = res.json<{ id: string }>().id;
      const delivered = () => receiver.accepted().filter((w) => w.path === '/task-run' && (JSON.parse(w.body) as { task_id?: string }).task_id === String(task));
      await until(() => delivered().length > 0, 90_000, "the run's webhook");
      expect({ standardOk: delivered()[0]!.standardOk, plainOk: delivered()[0]!.plainOk }).toEqual({ standardOk: true, plainOk: true });
      const runs = async () => (await call('GET', `/v1/tasks/${task}/runs`)).json<{ runs: { id: string; status: string }[] }>().runs;
      await until(async () => (await runs())[0]?.status === 'succeeded', 30_000, 'the run recorded as succeeded');
      expect((await runs()).map((r) => r.id)).toEqual([run]);
      expect((await call('DELETE', `/v1/tasks/${task}`)).status).toBeLessThan(300);

      // edge → auth-quota (the key) → scheduler (the run) → auth-quota (its admission) → renderer (the job)
      // → webhook-dispatcher (the delivery): one trace id.
      const traceId = res.headers['x-service-request-id'] as string;
      const services = () => new Set(otlp.byTrace(traceId).map((s) => s.service));
      await until(() => FIVE.every((s) => services().has(s)), 60_000, `spans of the five services in trace ${traceId}`);
      expect(services()).toEqual(new Set(FIVE));
    });
  });

  describe('When more renders are in flight than one renderer takes', () => {
    it('should serve them from both renderer replicas', async () => {
      const before = await Promise.all([1, 2].map(async (n) => sampleSum(await metricsOf(containerName('renderer', n), 9102), 'render_duration_count')));
      hold.reset();
      const renders = Array.from({ length: 6 }, (_, i) => call('POST', '/v1/screenshot', { url: page(`/hold?i=${i}`) }));
      await hold.untilHeld(renders, 6);
      hold.release();
      for (const res of await Promise.all(renders)) expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
      const after = await Promise.all([1, 2].map(async (n) => sampleSum(await metricsOf(containerName('renderer', n), 9102), 'render_duration_count')));
      expect(after[0]! - before[0]!).toBeGreaterThan(0);
      expect(after[1]! - before[1]!).toBeGreaterThan(0);
    });
  });

  describe('When Prometheus scrapes the compose network', () => {
    it('should report every replica of every service up, and the counters moved with the traffic', async () => {
      const expected = { 'edge-http': 1, 'auth-quota': 2, renderer: 2, scheduler: 1, 'webhook-dispatcher': 1 };
      await until(
        async () => {
          const { activeTargets } = await prometheus<{ activeTargets: { labels: { job: string }; health: string }[] }>('/api/v1/targets');
          return Object.entries(expected).every(([job, n]) => activeTargets.filter((t) => t.labels.job === job && t.health === 'up').length === n);
        },
        60_000,
        'every target up',
        1_000,
      );
      await until(
        async () => (await promValue('sum(http_server_request_duration_count{job="edge-http"})')) > edgeRequestsAtStart,
        60_000,
        "the edge's request counter to move",
        1_000,
      );
      // Every render so far (more than five) is counted once Prometheus has scraped both renderers since.
      await until(async () => (await promValue('sum(render_duration_count{job="renderer"})')) >= 5, 60_000, "the renderers' render counters to move", 1_000);
    });
  });

  describe('When a renderer container is killed (SIGKILL) with renders in flight', () => {
    it('should answer every render, charge each exactly once, and the restart policy brings the container back', async () => {
      const victim = containerName('renderer', 1);
      const restartsBefore = Number(await podman('inspect', '--format', '{{.RestartCount}}', victim));
      const usedBefore = await usedQuota();
      hold.reset();
      const renders = Array.from({ length: 6 }, (_, i) => call('POST', '/v1/screenshot', { url: page(`/hold?kill=${i}`), format: 'png' }));
      await hold.untilHeld(renders, 6);
      // SIGKILL to the container's init, as the kernel's OOM killer or a crash would end it. (podman 4.3
      // counts `podman kill` as a stop asked by the user, after which no restart policy applies.)
      process.kill(Number(await podman('inspect', '--format', '{{.State.Pid}}', victim)), 'SIGKILL');
      hold.release();
      const results = await Promise.all(renders);
      for (const res of results) expect(res.status, res.body.toString().slice(0, 200)).toBe(200);
      for (const res of results) expect(await pixelAt(res.body, 10, 10)).toEqual([0, 255, 0]);
      await until(async () => (await usedQuota()) === usedBefore + 6, 60_000, 'six renders charged', 1_000);
      await until(
        async () => (await podman('inspect', '--format', '{{.State.Running}} {{.RestartCount}}', victim)) === `true ${restartsBefore + 1}`,
        60_000,
        'the renderer container restarted',
        1_000,
      );
      await until(async () => (await podman('inspect', '--format', '{{.State.Health.Status}}', victim)) === 'healthy', 120_000, 'healthy again', 1_000);
      expect(await usedQuota()).toBe(usedBefore + 6);
    });
  });
});
