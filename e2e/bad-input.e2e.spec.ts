import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseContentDisposition } from 'content-disposition';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS, Objm, connectNats } from '@app/messaging';
import { pixelAt, startFixtureServer, startTestStack, until, type FixtureServer, type HttpsResponse, type TestStack } from '@app/testkit';

// Hostile and unusual input over HTTPS against the whole stack: every one gets its documented answer,
// never a 500 and never a hang. Large html travels by reference (the bus's 1 MiB message limit is no
// limit), Unicode attachment names reach the client exactly, Fastify's and Node's own refusals have
// the service's error shape, HEAD answers like GET, task names refuse control characters, and a
// SIGKILLed renderer's browser profiles and screencast folders are removed by the next renderer to start.
let stack: TestStack;
let fixture: FixtureServer;
/** TMPDIR of every service: the renderers' Chromium profiles are created under it. */
let servicesTmp: string;

beforeAll(async () => {
  fixture = await startFixtureServer({
    '/doc': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><html><head><meta charset="utf-8"><title>Doc</title></head><body><h1>Doc</h1></body></html>');
    },
  });
  servicesTmp = mkdtempSync(join(tmpdir(), 'render-tmp-'));
  // The rate limit is not under test here: the many statuses polled while large renders run stay under it.
  // No SMTP server (SMTP_URL empty even if this shell has one): a monitor's email channel is refused.
  stack = await startTestStack({ renderers: 1, env: { ALLOW_PRIVATE_TARGETS: '1', TMPDIR: servicesTmp, PLAN_SCALE_RATE_LIMIT: '100000', SMTP_URL: '' } });
});

afterAll(async () => {
  await stack?.stop();
  await fixture?.close();
  if (servicesTmp) rmSync(servicesTmp, { recursive: true, force: true });
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });
const post = (path: string, json: unknown) => stack.call('POST', path, { headers: key(), json });
const doc = () => `${fixture.origin}/doc`;

/** A page whose last element (after `bytes` of markup) paints the whole viewport green. */
const largeHtml = (bytes: number) => {
  const head = '<!doctype html><html><head><style>html,body{margin:0}</style></head><body><div style="display:none">';
  const tail = '</div><div style="position:fixed;inset:0;background:#00ff00"></div></body></html>';
  return head + 'filler '.repeat(Math.ceil((bytes - head.length - tail.length) / 7)) + tail;
};

interface Status {
  status: string;
  file: string | null;
  error: { code: string; message: string } | null;
}

async function finishedRender(id: string): Promise<Status> {
  let status: Status | undefined;
  await until(
    async () => {
      await new Promise((r) => setTimeout(r, 200));
      status = (await stack.call('GET', `/v1/renders/${id}`, { headers: key() })).json<Status>();
      return status.status === 'succeeded' || status.status === 'failed';
    },
    60_000,
    `render ${id} to finish`,
  );
  return status!;
}

const fileOf = (status: Status) => stack.call('GET', new URL(status.file!).pathname);

function expectErrorShape(res: HttpsResponse, status: number, code: string) {
  expect(res.status, res.body.toString().slice(0, 300)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['x-service-request-id']).toMatch(/^[0-9a-f]{32}$/);
  expect(res.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
  const body = res.json<Record<string, unknown>>();
  expect(body).toMatchObject({ statusCode: status, code });
  expect(typeof body.error).toBe('string');
  expect(typeof body.message).toBe('string');
  return body;
}

/** Objects left in the render-inputs store (parameters that travelled by reference). */
async function storedInputs(): Promise<number> {
  const nc = await connectNats({ servers: stack.natsUrl, name: 'bad-input-e2e' });
  try {
    const store = await new Objm(nc).open(BUCKETS.renderInputs.name);
    return (await store.list()).length;
  } finally {
    await nc.close();
  }
}

describe('html larger than a bus message', () => {
  describe('When a synchronous screenshot gets 1.5 MiB of html', () => {
    it('should render all of it (the marker at its end is drawn) and leave nothing stored', async () => {
      const res = await post('/v1/screenshot', { html: largeHtml(1.5 * 1024 * 1024), format: 'png', viewport_width: 200, viewport_height: 100 });
      expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
      expect(await pixelAt(res.body, 100, 50)).toEqual([0, 255, 0]);
      await until(async () => (await storedInputs()) === 0, 10_000, 'the stored html to be removed');
    });
  });

  describe('When an asynchronous pdf gets html near the 5,000,000-character maximum', () => {
    it('should answer 202, render all of it and leave nothing stored', async () => {
      const accepted = await post('/v1/screenshot', {
        html: largeHtml(4_900_000),
        format: 'png',
        viewport_width: 200,
        viewport_height: 100,
        async: true,
      });
      expect(accepted.status, accepted.body.toString().slice(0, 300)).toBe(202);
      const status = await finishedRender(accepted.json<{ id: string }>().id);
      expect(status).toMatchObject({ status: 'succeeded', error: null });
      const file = await fileOf(status);
      expect(file.status).toBe(200);
      expect(await pixelAt(file.body, 100, 50)).toEqual([0, 255, 0]);
      await until(async () => (await storedInputs()) === 0, 10_000, 'the stored html to be removed');
    });
  });

  describe('When html is over the maximum', () => {
    it('should answer 400 naming html', async () => {
      const res = await post('/v1/pdf', { html: 'x'.repeat(5_000_001) });
      expect(expectErrorShape(res, 400, 'invalid_parameter').details).toEqual([{ parameter: 'html', message: expect.stringContaining('5000000') }]);
    });
  });
});

describe('attachment_name', () => {
  const name = 'Relevé 東京 🙂 (v2)';

  describe('When a synchronous render is named with Unicode text', () => {
    it('should carry an ASCII fallback filename and the exact name as filename*', async () => {
      const res = await post('/v1/scrape', { url: doc(), attachment_name: name });
      expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
      const header = String(res.headers['content-disposition']);
      expect(header).toMatch(/^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''/);
      expect(parseContentDisposition(header).parameters.filename).toBe(`${name}.html`);
      expect(parseContentDisposition(header, { extended: false }).parameters.filename).toBe('Releve __ _ (v2).html');
    });
  });

  describe('When an asynchronous render is named with Unicode text', () => {
    it('should be downloadable with the same Content-Disposition', async () => {
      const accepted = await post('/v1/scrape', { url: doc(), attachment_name: name, async: true });
      expect(accepted.status).toBe(202);
      const status = await finishedRender(accepted.json<{ id: string }>().id);
      expect(status.status).toBe('succeeded');
      const file = await fileOf(status);
      expect(file.status).toBe(200);
      expect(parseContentDisposition(String(file.headers['content-disposition'])).parameters.filename).toBe(`${name}.html`);
    });
  });

  describe('When the name holds a quote, a path separator or a control character', () => {
    it.each(['a"b', "it's", 'dir/name', 'dir\\name', 'a\u0000b', 'a\r\nSet-Cookie: x=1', 'a\u0085b'])(
      'should answer 400 naming attachment_name for sync, async and task queries (%j)',
      async (bad) => {
        const query = new URLSearchParams({ access_key: stack.demo.accessKey, url: doc(), attachment_name: bad });
        const answers = [
          await stack.call('GET', `/v1/scrape?${query}`),
          await post('/v1/scrape', { url: doc(), attachment_name: bad, async: true }),
        ];
        for (const res of answers) {
          expect(expectErrorShape(res, 400, 'invalid_parameter').details).toEqual([{ parameter: 'attachment_name', message: expect.any(String) }]);
        }
        const task = await post('/v1/tasks', {
          name: 'named file',
          api: 'scrape',
          query: new URLSearchParams({ url: doc(), attachment_name: bad }).toString(),
          frequency: 'every_day',
        });
        expect(expectErrorShape(task, 400, 'invalid_parameter').details).toEqual([
          { parameter: 'query.attachment_name', message: expect.any(String) },
        ]);
      },
    );
  });
});

describe('errors raised by the HTTP framework itself', () => {
  describe('When the body is not valid JSON', () => {
    it('should answer 400 in the service error shape', async () => {
      const res = await stack.call('POST', '/v1/screenshot', { headers: { ...key(), 'content-type': 'application/json' }, body: '{"url": ' });
      expect(expectErrorShape(res, 400, 'invalid_parameter').details).toEqual([{ parameter: 'body', message: expect.any(String) }]);
    });
  });

  describe('When the body is not JSON at all', () => {
    it('should answer 415 unsupported_media_type', async () => {
      const res = await stack.call('POST', '/v1/screenshot', { headers: { ...key(), 'content-type': 'application/xml' }, body: '<url/>' });
      expectErrorShape(res, 415, 'unsupported_media_type');
    });
  });

  describe('When the body is larger than the limit', () => {
    it('should answer 413 payload_too_large', async () => {
      const res = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { html: 'x'.repeat(7 * 1024 * 1024) } });
      expectErrorShape(res, 413, 'payload_too_large');
    });
  });

  describe('When the headers are larger than Node accepts', () => {
    it('should answer 431 header_too_large', async () => {
      const res = await stack.call('GET', '/v1/usage', { headers: { ...key(), 'x-padding': 'a'.repeat(20_000) } });
      expectErrorShape(res, 431, 'header_too_large');
    });
  });

  describe('When the URL is badly percent-encoded', () => {
    it('should answer 400 bad_request', async () => {
      const res = await stack.call('GET', '/v1/files/%E0%A4%A');
      expectErrorShape(res, 400, 'bad_request');
    });
  });
});

describe('HEAD', () => {
  /** The same request as GET and as HEAD: same status and headers, no body for HEAD. */
  async function both(path: string, headers: Record<string, string> = {}) {
    const get = await stack.call('GET', path, { headers });
    const head = await headRequest(path, headers);
    return { get, head };
  }

  function headRequest(path: string, headers: Record<string, string>): Promise<HttpsResponse> {
    return new Promise((resolve, reject) => {
      const req = request(
        `https://127.0.0.1:${stack.port}${path}`,
        { method: 'HEAD', headers, ca: stack.certPem, servername: 'localhost' },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), json: () => JSON.parse('null') }),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  const SAME = ['content-type', 'content-length', 'content-disposition', 'cache-control', 'x-ratelimit-limit'];

  it.each([
    ['/healthz', false],
    ['/v1/usage', true],
    ['/v1/devices', true],
    ['/v1/tasks', true],
  ])('should answer %s like GET, without a body', async (path, withKey) => {
    const { get, head } = await both(path, withKey ? key() : {});
    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of SAME) expect(head.headers[name], name).toEqual(get.headers[name]);
    expect(head.headers['x-service-request-id']).toMatch(/^[0-9a-f]{32}$/);
  });

  it('should answer a GET render (scrape by query) like GET, without a body', async () => {
    const path = `/v1/scrape?${new URLSearchParams({ access_key: stack.demo.accessKey, url: doc(), attachment_name: 'page' })}`;
    const { get, head } = await both(path);
    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of ['content-type', 'content-length', 'content-disposition']) expect(head.headers[name], name).toEqual(get.headers[name]);
  });

  it('should answer a result file and a render status like GET, without a body', async () => {
    const accepted = await post('/v1/scrape', { url: doc(), async: true });
    const id = accepted.json<{ id: string }>().id;
    const status = await finishedRender(id);
    for (const [path, headers] of [
      [new URL(status.file!).pathname, {}],
      [`/v1/renders/${id}`, key()],
    ] as const) {
      const { get, head } = await both(path, headers);
      expect(get.status).toBe(200);
      expect(head.status).toBe(200);
      expect(head.body.length).toBe(0);
      for (const name of ['content-type', 'content-length']) expect(head.headers[name], `${path} ${name}`).toEqual(get.headers[name]);
    }
  });

  it('should answer a bad request like GET (400), without a body', async () => {
    const path = `/v1/screenshot?${new URLSearchParams({ access_key: stack.demo.accessKey, url: doc(), format: 'bmp' })}`;
    const { get, head } = await both(path);
    expect(get.status).toBe(400);
    expect(head.status).toBe(400);
    expect(head.body.length).toBe(0);
  });
});

describe('task names', () => {
  it.each([
    ['NUL', 'a\u0000b'],
    ['CR/LF', 'Report\r\nX-Injected: 1'],
    ['another control character', 'a\u0007b'],
  ])('should refuse %s with 400 naming name', async (_label, name) => {
    const res = await post('/v1/tasks', { name, api: 'scrape', query: `url=${encodeURIComponent(doc())}`, frequency: 'every_day' });
    expect(expectErrorShape(res, 400, 'invalid_parameter').details).toEqual([{ parameter: 'name', message: expect.any(String) }]);
  });
});

describe('an email notify channel on a server without SMTP_URL', () => {
  const monitor = (notify: unknown[]) => ({ mode: 'text', notify });
  const slack = { type: 'slack', url: 'http://127.0.0.1:9/slack' };
  const email = { type: 'email', to: 'watcher@example.test' };

  it('should refuse the task with 400 naming monitor.notify[i], and create nothing', async () => {
    const name = 'email without SMTP';
    const res = await post('/v1/tasks', { name, api: 'scrape', query: `url=${encodeURIComponent(doc())}`, frequency: 'every_day', monitor: monitor([slack, email]) });
    expect(expectErrorShape(res, 400, 'invalid_parameter').details).toEqual([{ parameter: 'monitor.notify[1]', message: expect.stringContaining('SMTP_URL') }]);
    const list = (await stack.call('GET', '/v1/tasks', { headers: key() })).json<{ tasks: { name: string }[] }>();
    expect(list.tasks.map((t) => t.name)).not.toContain(name);
  });

  it('should refuse it the same way when a PATCH adds it, and keep the task as it was', async () => {
    const created = await post('/v1/tasks', { name: 'slack only', api: 'scrape', query: `url=${encodeURIComponent(doc())}`, frequency: 'every_day', monitor: monitor([slack]) });
    expect(created.status).toBe(201);
    const id = created.json<{ id: number }>().id;
    const res = await stack.call('PATCH', `/v1/tasks/${id}`, { headers: key(), json: { monitor: monitor([email, slack]) } });
    expect(expectErrorShape(res, 400, 'invalid_parameter').details).toEqual([{ parameter: 'monitor.notify[0]', message: expect.stringContaining('SMTP_URL') }]);
    const task = (await stack.call('GET', `/v1/tasks/${id}`, { headers: key() })).json<{ monitor: { notify: unknown[] } }>();
    expect(task.monitor.notify).toEqual([slack]);
  });
});

describe('temporary folders of a SIGKILLed renderer', () => {
  /** Every folder under the services' TMPDIR whose name starts with `prefix`. */
  const foldersOf = (prefix: string): string[] =>
    readdirSync(servicesTmp)
      .filter((entry) => entry.startsWith(prefix))
      .map((entry) => join(servicesTmp, entry));
  /** Every Chromium profile folder under the services' TMPDIR. */
  const profileFolders = () => foldersOf('renderer-chromium');

  it('should be removed by the next renderer to start', async () => {
    const renderer = stack.processes.find((p) => p.name.startsWith('renderer') && p.process.exitCode === null)!;
    const before = profileFolders();
    expect(before.length).toBeGreaterThan(0);
    await renderer.kill({ restart: false });
    expect(profileFolders().filter((folder) => before.includes(folder)).length).toBeGreaterThan(0);

    await stack.addRenderer();
    await until(() => profileFolders().every((folder) => !before.includes(folder)), 10_000, 'the dead renderer’s profiles to be removed');
    // The new renderer works.
    const res = await post('/v1/scrape', { url: doc() });
    expect(res.status).toBe(200);
  });

  it('should have its screencast folders (a partial customer video) removed by the next renderer to start', async () => {
    const renderer = stack.processes.find((p) => p.name.startsWith('renderer') && p.process.exitCode === null && p.process.signalCode === null)!;
    const accepted = await post('/v1/screencast', { url: doc(), duration: 6, async: true });
    expect(accepted.status).toBe(202);
    let recording: string[] = [];
    await until(() => (recording = foldersOf('renderer-screencast')).length > 0, 30_000, 'a screencast to be recording');
    await renderer.kill({ restart: false });
    // The encoder writes out what it had once its input ends: the folder outlives the renderer.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(foldersOf('renderer-screencast').filter((folder) => recording.includes(folder)).length).toBeGreaterThan(0);

    await stack.addRenderer();
    await until(() => foldersOf('renderer-screencast').every((folder) => !recording.includes(folder)), 10_000, 'the dead renderer’s screencast folders to be removed');
    // The render itself is redelivered and completes on the new renderer.
    const done = await finishedRender(accepted.json<{ id: string }>().id);
    expect(done.status).toBe('succeeded');
  });
});
