import { readFileSync } from 'node:fs';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKETS, Objm, STREAMS, SUBJECTS, connectNats, jetstreamManager } from '@app/messaging';
import { RENDER_PRODUCERS } from '@app/render-contracts';
import {
  holdRoute,
  imageInfo,
  pixelAt,
  recordFinishedRenders,
  startFixtureServer,
  startOtlpReceiver,
  startTestStack,
  until,
  type FixtureServer,
  type TestStack,
} from '@app/testkit';

// The whole stack as `npm start` runs it (NATS + five processes, two renderers), called over HTTPS.
let stack: TestStack;
let fixture: FixtureServer;
let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
let finished: Awaited<ReturnType<typeof recordFinishedRenders>>;
const hold = holdRoute();

beforeAll(async () => {
  fixture = await startFixtureServer({ '/hold': hold.handler });
  otlp = await startOtlpReceiver();
  stack = await startTestStack({
    renderers: 2,
    env: { ALLOW_PRIVATE_TARGETS: '1', OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint, RENDERER_CONCURRENCY: '4' },
  });
  finished = await recordFinishedRenders(stack.natsUrl);
});

afterAll(async () => {
  await finished?.close();
  await stack?.stop();
  await fixture?.close();
  await otlp?.close();
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });

describe('POST /v1/screenshot', () => {
  describe('When given the url of a local page and no format', () => {
    it('should return a 1280x1080 JPEG with the decided headers', async () => {
      const res = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { url: `${fixture.origin}/` } });
      expect(res.status, res.body.toString()).toBe(200);
      expect(res.headers['content-type']).toBe('image/jpeg');
      expect(res.headers['content-disposition']).toBe('inline');
      expect(res.headers['x-service-request-id']).toMatch(/^[0-9a-f]{32}$/);
      expect(res.headers['strict-transport-security']).toContain('max-age=31536000');
      expect(await imageInfo(res.body)).toEqual({ format: 'jpeg', width: 1280, height: 1080 });
      expect(fixture.hits('/')).toBeGreaterThan(0);
    });
  });

  describe.each([
    ['png', 'png'],
    ['webp', 'webp'],
    ['jpg', 'jpeg'],
  ])('When format is %s', (format, decoded) => {
    it(`should return a ${decoded} image`, async () => {
      const res = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { url: `${fixture.origin}/`, format } });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(`image/${decoded}`);
      expect(await imageInfo(res.body)).toMatchObject({ format: decoded, width: 1280, height: 1080 });
    });
  });

  describe('When given html instead of url', () => {
    it('should render that markup', async () => {
      const html = '<html><body style="margin:0;background:#0000ff"></body></html>';
      const res = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { html, format: 'png' } });
      expect(res.status).toBe(200);
      expect(await pixelAt(res.body, 640, 540)).toEqual([0, 0, 255]);
    });
  });

  describe('Where a synchronous result travels', () => {
    const resultsBucket = async () => {
      const nc = await connectNats({ servers: stack.natsUrl, name: 'e2e-results' });
      const jsm = await jetstreamManager(nc);
      /** The render's finished event as the render events stream holds it, if it does. */
      const storedEvent = (jobId: string) => jsm.streams.getMessage(STREAMS.RENDER_EVENTS.name, { last_by_subj: SUBJECTS.renderEvent('sync', 'finished', jobId) });
      return { store: await new Objm(nc).open(BUCKETS.renderResults.name), storedEvent, close: () => nc.close() };
    };
    /** The renderer's finished event of the one render `call` makes. */
    const finishedOf = async (call: () => Promise<Awaited<ReturnType<TestStack['call']>>>) => {
      const from = finished.events.length;
      const res = await call();
      await until(() => finished.events.slice(from).some((e) => e.producer === RENDER_PRODUCERS.renderer), 10_000, 'the finished event');
      return { res, event: finished.events.slice(from).find((e) => e.producer === RENDER_PRODUCERS.renderer)! };
    };

    describe('When the result fits in a message', () => {
      it('should be handed to the edge: the caller gets the image, and neither an object nor an event is ever stored', async () => {
        const html = '<html><body style="margin:0;background:#00ff00"></body></html>';
        const { res, event } = await finishedOf(() => stack.call('POST', '/v1/screenshot', { headers: key(), json: { html, format: 'png' } }));
        expect(res.status).toBe(200);
        expect(await pixelAt(res.body, 640, 540)).toEqual([0, 255, 0]);
        expect(event).toMatchObject({ status: 'succeeded', result: { object_name: '', size: res.body.byteLength } });
        const bucket = await resultsBucket();
        try {
          expect(await bucket.store.info(event.job_id)).toBeNull();
          expect(await bucket.storedEvent(event.job_id)).toBeNull();
        } finally {
          await bucket.close();
        }
      });
    });

    describe('When the result is larger than a message (a PNG of noise, several MiB)', () => {
      it('should go through the object store, whole, and be removed once answered', async () => {
        const html = `<html><body style="margin:0"><canvas id="c" width="1280" height="1080"></canvas><script>
          const g = document.getElementById('c').getContext('2d'); const d = g.createImageData(1280, 1080);
          for (let i = 0; i < d.data.length; i++) d.data[i] = i % 4 === 3 ? 255 : (Math.random() * 256) | 0;
          g.putImageData(d, 0, 0);</script></body></html>`;
        const { res, event } = await finishedOf(() => stack.call('POST', '/v1/screenshot', { headers: key(), json: { html, format: 'png' } }));
        expect(res.status).toBe(200);
        expect(res.body.byteLength).toBeGreaterThan(1024 * 1024);
        expect(await imageInfo(res.body)).toEqual({ format: 'png', width: 1280, height: 1080 });
        expect(event).toMatchObject({ status: 'succeeded', result: { object_name: event.job_id, size: res.body.byteLength } });
        const bucket = await resultsBucket();
        try {
          await until(async () => (await bucket.store.info(event.job_id))?.deleted ?? true, 10_000, 'the transient result removed');
          // Not handed over, the outcome is stored for the edge to read back should it miss the message.
          expect(await bucket.storedEvent(event.job_id)).not.toBeNull();
        } finally {
          await bucket.close();
        }
      });
    });
  });

  describe('When neither or both of url and html are given', () => {
    it('should answer 400 naming the problem', async () => {
      const neither = await stack.call('POST', '/v1/screenshot', { headers: key(), json: {} });
      expect(neither.status).toBe(400);
      expect(neither.json()).toMatchObject({
        statusCode: 400,
        error: 'Bad Request',
        code: 'invalid_parameter',
        details: [{ parameter: 'url', message: 'one of url or html is required' }],
      });
      const both = await stack.call('POST', '/v1/screenshot', {
        headers: key(),
        json: { url: `${fixture.origin}/`, html: '<p>x</p>' },
      });
      expect(both.status).toBe(400);
      expect(both.json()).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'url', message: 'give either url or html, not both' }] });
    });
  });

  describe('When the access key is wrong or missing', () => {
    it('should answer exactly the 401 body of the spec, with a request id', async () => {
      for (const headers of [{ 'x-access-key': 'ak_wrong' }, {}]) {
        const res = await stack.call('POST', '/v1/screenshot', { headers, json: { url: `${fixture.origin}/` } });
        expect(res.status).toBe(401);
        expect(res.json()).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Invalid access key', code: 'access_key_invalid' });
        expect(res.headers['x-service-request-id']).toMatch(/^[0-9a-f]{32}$/);
      }
    });
  });

  describe('When the key is in the body', () => {
    it('should authenticate with it', async () => {
      const res = await stack.call('POST', '/v1/screenshot', { json: { access_key: stack.demo.accessKey, html: '<p>hi</p>' } });
      expect(res.status).toBe(200);
    });
  });
});

describe('GET /v1/screenshot', () => {
  describe('When the key and the parameters are in the query', () => {
    it('should render like the POST form, with the attachment name', async () => {
      const q = new URLSearchParams({ access_key: stack.demo.accessKey, url: `${fixture.origin}/`, format: 'png', attachment_name: 'shot' });
      const res = await stack.call('GET', `/v1/screenshot?${q}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-disposition']).toBe('attachment; filename="shot.png"');
      expect(await imageInfo(res.body)).toMatchObject({ format: 'png', width: 1280, height: 1080 });
    });
  });
});

describe('TLS', () => {
  /** A handshake with the stack as a client with `options`: what it negotiated, or `error: …`. */
  const negotiate = (options: ConnectionOptions) =>
    new Promise<{ protocol: string; cipher: string } | string>((resolve) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: stack.port, ca: stack.certPem, servername: 'localhost', ...options });
      socket.once('secureConnect', () => {
        resolve({ protocol: socket.getProtocol() ?? 'unknown', cipher: socket.getCipher().name });
        socket.end();
      });
      socket.once('error', (err) => resolve(`error: ${err.message}`));
    });
  const handshake = async (maxVersion: 'TLSv1.1' | 'TLSv1.2') => {
    // Let this client really offer TLS 1.1, so a refusal comes from the server.
    const result = await negotiate({ minVersion: 'TLSv1', maxVersion, ciphers: 'DEFAULT@SECLEVEL=0' });
    return typeof result === 'string' ? result : result.protocol;
  };
  const cipherOf = async (ciphers?: string) => {
    const result = await negotiate(ciphers ? { ciphers } : {});
    return typeof result === 'string' ? result : `${result.protocol} ${result.cipher}`;
  };

  describe('When a client offers at most TLS 1.1', () => {
    it('should refuse the handshake, while TLS 1.2 succeeds', async () => {
      expect(await handshake('TLSv1.2')).toBe('TLSv1.2');
      expect(await handshake('TLSv1.1')).toMatch(/^error: .*(protocol|version)/i);
    });
  });

  describe('When a client offers the usual TLS 1.3 suites, AES-256-GCM first (OpenSSL and Node clients do)', () => {
    it('should choose AES-128-GCM, cheaper per byte sent', async () => {
      expect(await cipherOf()).toBe('TLSv1.3 TLS_AES_128_GCM_SHA256');
    });
  });

  describe('When a client puts ChaCha20-Poly1305 first (a device without AES instructions)', () => {
    it("should follow the client's choice", async () => {
      expect(await cipherOf('TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384:TLS_AES_128_GCM_SHA256')).toBe('TLSv1.3 TLS_CHACHA20_POLY1305_SHA256');
    });
  });
});

describe('Processes', () => {
  /** The options Node was started with in a process of the stack, as its kernel records them. */
  const nodeOptionsOf = (name: string) => {
    const pid = stack.processes.find((p) => p.name === name)?.process.pid;
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.slice(1, argv.indexOf('--import'));
  };

  describe('When the stack runs its services', () => {
    it("should give the edge's heap semi-spaces of 32 MiB (fewer young collections under load), the others V8's", () => {
      expect(nodeOptionsOf('edge-http')).toContain('--max-semi-space-size=32');
      for (const name of ['auth-quota', 'scheduler', 'webhook-dispatcher', 'renderer-1']) {
        expect(nodeOptionsOf(name).join(' ')).not.toMatch(/semi-space/);
      }
    });

    it("should start the scheduler with its allocator keeping freed memory (its comparisons' images reuse it), the others with the C library's defaults", () => {
      const environmentOf = (name: string) => {
        const pid = stack.processes.find((p) => p.name === name)?.process.pid;
        return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      };
      expect(environmentOf('scheduler')).toEqual(expect.arrayContaining(['MALLOC_MMAP_THRESHOLD_=67108864', 'MALLOC_TRIM_THRESHOLD_=268435456']));
      for (const name of ['edge-http', 'auth-quota', 'webhook-dispatcher', 'renderer-1']) {
        expect(environmentOf(name).filter((v) => v.startsWith('MALLOC_'))).toEqual([]);
      }
    });
  });
});

/** A POST whose body is sent 150 ms after its headers, on a connection of its own: its status and headers. */
const postWithBodyLater = (path: string, json: unknown) =>
  new Promise<{ status: number; headers: Record<string, string> }>((resolve, reject) => {
    const body = Buffer.from(JSON.stringify(json));
    const socket = tlsConnect({ host: '127.0.0.1', port: stack.port, ca: stack.certPem, servername: 'localhost' });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('end', () => {
      const [head = ''] = Buffer.concat(chunks).toString('latin1').split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers });
    });
    socket.once('secureConnect', () => {
      const headers = [`POST ${path} HTTP/1.1`, 'host: localhost', `x-access-key: ${stack.demo.accessKey}`, 'content-type: application/json', `content-length: ${body.length}`, 'connection: close'];
      socket.write(`${headers.join('\r\n')}\r\n\r\n`);
      setTimeout(() => socket.write(body), 150);
    });
  });

describe('Tracing', () => {
  describe('When a screenshot is rendered', () => {
    it('should record one trace crossing edge-http, auth-quota and renderer', async () => {
      const res = await stack.call('POST', '/v1/screenshot', { headers: key(), json: { html: '<p>traced</p>' } });
      expect(res.status).toBe(200);
      const traceId = res.headers['x-service-request-id'] as string;
      // The edge's server span ends after the response is written, so it may come in a later export
      // than the edge's calls to the others: wait for it too.
      const namesOf = () => otlp.byTrace(traceId).map((s) => `${s.service}:${s.name}`);
      await until(() => {
        const names = namesOf();
        return ['auth-quota:', 'renderer:'].every((service) => names.some((n) => n.startsWith(service))) && names.includes('edge-http:POST /v1/screenshot');
      }, 15_000, 'spans of all three services, the edge server span included');
      const names = namesOf();
      expect(names.some((n) => n.startsWith('auth-quota:') && n.includes('AdmitRequest'))).toBe(true);
      expect(names).toContain('renderer:render screenshot');
      expect(names).toContain('edge-http:POST /v1/screenshot');
    });
  });

  describe('When a cached screenshot is rendered, then answered from the cache', () => {
    it('should trace the miss across the services and give every hit a server span of its own trace', async () => {
      const json = { html: '<p>traced, then cached</p>', cache: true };
      // A cache request's body is read beneath Fastify first (known-hits.ts), then handed to it: its trace goes
      // on, also when the body comes in a packet of its own, after the headers.
      const miss = await postWithBodyLater('/v1/screenshot', json);
      expect(miss.status).toBe(200);
      expect(miss.headers['x-service-cache']).toBe('MISS');
      const missTrace = miss.headers['x-service-request-id']!;
      const namesOf = (traceId: string) => otlp.byTrace(traceId).map((s) => `${s.service}:${s.name}`);
      await until(() => {
        const names = namesOf(missTrace);
        return names.includes('renderer:render screenshot') && names.includes('edge-http:POST /v1/screenshot');
      }, 15_000, "the miss's render and its edge server span, in one trace");
      // The first hit reads the file; the next ones are answered from this edge's memory.
      const hits = [];
      for (let i = 0; i < 3; i++) hits.push(await stack.call('POST', '/v1/screenshot', { headers: key(), json }));
      for (const hit of hits) expect(hit.headers['x-service-cache']).toBe('HIT');
      const hitTraces = hits.map((hit) => hit.headers['x-service-request-id'] as string);
      expect(new Set([missTrace, ...hitTraces]).size).toBe(4);
      await until(() => hitTraces.every((id) => namesOf(id).includes('edge-http:POST /v1/screenshot')), 15_000, "each hit's server span");
    });
  });
});

describe('Renderer replicas', () => {
  const heldRenders = (n: number) =>
    Array.from({ length: n }, (_, i) =>
      stack.call('POST', '/v1/screenshot', { headers: key(), json: { url: `${fixture.origin}/hold?i=${i}`, format: 'png' } }),
    );

  describe('When more renders are in flight than one renderer takes', () => {
    it('should spread them over both renderers', async () => {
      hold.reset();
      const from = finished.events.length;
      const responses = heldRenders(6);
      await hold.untilHeld(responses, 6);
      hold.release();
      for (const res of await Promise.all(responses)) expect(res.status).toBe(200);
      const rendered = finished.events.slice(from).filter((e) => e.producer === RENDER_PRODUCERS.renderer);
      const renderers = new Set(rendered.map((e) => e.renderer_id));
      expect(renderers).toEqual(new Set(['renderer-1', 'renderer-2']));
    });
  });

  describe('When a renderer is killed in the middle of its renders', () => {
    it('should redeliver its jobs to the other renderer and answer every request', async () => {
      hold.reset();
      const from = finished.events.length;
      const responses = heldRenders(6);
      await hold.untilHeld(responses, 6);
      const victim = stack.processes.find((p) => p.name === 'renderer-1')!;
      await victim.kill();
      hold.release();
      const results = await Promise.all(responses);
      for (const res of results) expect(res.status, res.body.toString().slice(0, 200)).toBe(200);
      for (const res of results) expect(await pixelAt(res.body, 10, 10)).toEqual([0, 255, 0]);
      const succeeded = finished.events.slice(from).filter((e) => e.status === 'succeeded' && e.producer === RENDER_PRODUCERS.renderer);
      expect(succeeded.some((e) => e.renderer_id === 'renderer-2')).toBe(true);
      await stack.addRenderer();
    });
  });
});
