import { createServer, Agent } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEgressProxy, type EgressProxy } from './egress-proxy.js';
import type { BlockedRequest } from './proxy-context.js';
import { CANARY_BODY, startCanary, type Canary } from './testing/canary.js';
import { fakeLookup, type FakeLookup } from './testing/fake-lookup.js';
import { exchange, proxyConnect, proxyRequest } from './testing/proxy-client.js';

let canary: Canary;
let proxy: EgressProxy;
let lookup: FakeLookup;
let blocked: BlockedRequest[];

async function start(allowPrivate: boolean): Promise<void> {
  blocked = [];
  proxy = await startEgressProxy({ allowPrivate, lookup, onBlocked: (info) => blocked.push(info), idleTimeoutMs: 5_000 });
}

beforeEach(async () => {
  canary = await startCanary();
  lookup = fakeLookup({ 'canary.test': ['127.0.0.1'], 'sneaky.test': ['127.0.0.1'] });
});

afterEach(async () => {
  await proxy?.close();
  await canary.close();
});

/** True if the promise settles in time: proves a teardown was prompt, not the idle timeout. */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('startEgressProxy', () => {
  describe('When private targets are not allowed', () => {
    beforeEach(() => start(false));

    it('should answer a proxied GET of the loopback canary with a short 403 and never reach it', async () => {
      const res = await proxyRequest(proxy.port, `http://127.0.0.1:${canary.port}/latest/meta-data/`);
      expect(res.status).toBe(403);
      expect(res.body).toBe('The target is not allowed.\n');
      expect(canary.hits).toBe(0);
      expect(proxy.stats()).toEqual({ allowed: 0, blocked: 1 });
      expect(blocked).toEqual([{ host: '127.0.0.1', port: canary.port, reason: 'non_public_address' }]);
    });

    it('should refuse a CONNECT to the canary with 403 and never reach it', async () => {
      const { status, socket } = await proxyConnect(proxy.port, `127.0.0.1:${canary.port}`);
      socket.destroy();
      expect(status).toBe(403);
      expect(canary.hits).toBe(0);
      expect(proxy.stats().blocked).toBe(1);
    });

    it('should refuse a public-looking name the resolver maps to 127.0.0.1, over GET and CONNECT', async () => {
      const res = await proxyRequest(proxy.port, `http://sneaky.test:${canary.port}/`);
      const tunnel = await proxyConnect(proxy.port, `sneaky.test:${canary.port}`);
      tunnel.socket.destroy();
      expect([res.status, tunnel.status]).toEqual([403, 403]);
      expect(lookup.calls).toEqual(['sneaky.test', 'sneaky.test']);
      expect(canary.hits).toBe(0);
      expect(proxy.stats().blocked).toBe(2);
    });

    it('should refuse numeric, hex and short spellings of loopback and localhost names', async () => {
      const gets = await Promise.all(
        [`http://2130706433:${canary.port}/`, `http://0x7f.1:${canary.port}/`, `http://localhost.:${canary.port}/`].map((t) =>
          proxyRequest(proxy.port, t),
        ),
      );
      const tunnels = await Promise.all(
        [`0x7f000001:${canary.port}`, `127.1:${canary.port}`, `[::ffff:127.0.0.1]:${canary.port}`, `a.localhost:${canary.port}`].map((a) =>
          proxyConnect(proxy.port, a),
        ),
      );
      tunnels.forEach((t) => t.socket.destroy());
      expect([...gets, ...tunnels].map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403, 403]);
      expect(lookup.calls).toEqual([]);
      expect(canary.hits).toBe(0);
    });

    it('should refuse absolute-form requests for schemes other than http', async () => {
      const res = await proxyRequest(proxy.port, `ftp://127.0.0.1:${canary.port}/`);
      expect(res.status).toBe(403);
      expect(blocked[0]?.reason).toBe('scheme_not_allowed');
      expect(canary.hits).toBe(0);
    });
  });

  describe('When private targets are allowed', () => {
    beforeEach(() => start(true));

    it('should forward a GET to the pinned address, keep Host and end-to-end headers, drop hop-by-hop ones', async () => {
      const res = await proxyRequest(proxy.port, `http://canary.test:${canary.port}/page?q=1`, {
        headers: { 'x-custom': 'yes', 'proxy-connection': 'keep-alive', 'proxy-authorization': 'Basic eA==', connection: 'x-drop', 'x-drop': '1' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toBe(CANARY_BODY);
      expect(res.headers['x-canary']).toBe('1');
      expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
      expect(canary.last).toMatchObject({ method: 'GET', url: '/page?q=1', headers: { host: `canary.test:${canary.port}`, 'x-custom': 'yes' } });
      expect(canary.last?.rawHeaderNames).not.toContain('proxy-connection');
      expect(canary.last?.rawHeaderNames).not.toContain('proxy-authorization');
      expect(canary.last?.rawHeaderNames).not.toContain('x-drop');
      expect(lookup.calls).toEqual(['canary.test']);
      expect(proxy.stats()).toEqual({ allowed: 1, blocked: 0 });
    });

    it('should forward a request body', async () => {
      const res = await proxyRequest(proxy.port, `http://127.0.0.1:${canary.port}/submit`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: 'hello upstream',
      });
      expect(res.status).toBe(200);
      expect(canary.last).toMatchObject({ method: 'POST', body: 'hello upstream' });
    });

    it('should tunnel a CONNECT to the pinned address', async () => {
      const { status, socket } = await proxyConnect(proxy.port, `canary.test:${canary.port}`);
      expect(status).toBe(200);
      const reply = await exchange(socket, `GET /tunnelled HTTP/1.1\r\nHost: canary.test\r\nConnection: close\r\n\r\n`);
      expect(reply).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(reply).toContain(CANARY_BODY);
      expect(canary.last?.url).toBe('/tunnelled');
    });

    it('should keep the client connection alive across requests', async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const first = await proxyRequest(proxy.port, `http://127.0.0.1:${canary.port}/1`, { agent });
        const second = await proxyRequest(proxy.port, `http://127.0.0.1:${canary.port}/2`, { agent });
        expect([first.status, second.status]).toEqual([200, 200]);
        expect(second.reusedSocket).toBe(true);
      } finally {
        agent.destroy();
      }
    });
  });

  describe('When the name does not resolve', () => {
    beforeEach(() => start(false));

    it('should answer 502 to GET and CONNECT without counting a block', async () => {
      const res = await proxyRequest(proxy.port, 'http://nxdomain.test/');
      const tunnel = await proxyConnect(proxy.port, 'nxdomain.test:443');
      tunnel.socket.destroy();
      expect([res.status, tunnel.status]).toEqual([502, 502]);
      expect(res.body).toBe('The target could not be reached.\n');
      expect(proxy.stats()).toEqual({ allowed: 0, blocked: 0 });
    });
  });

  describe('When the upstream refuses the connection', () => {
    beforeEach(() => start(true));

    it('should answer 502 to GET and CONNECT', async () => {
      const port = await closedPort();
      const res = await proxyRequest(proxy.port, `http://127.0.0.1:${port}/`);
      const tunnel = await proxyConnect(proxy.port, `127.0.0.1:${port}`);
      tunnel.socket.destroy();
      expect([res.status, tunnel.status]).toEqual([502, 502]);
    });
  });

  describe('When the request is not a proxy request', () => {
    beforeEach(() => start(true));

    it('should answer 400 to origin-form requests and malformed CONNECT targets', async () => {
      const res = await proxyRequest(proxy.port, '/');
      const tunnel = await proxyConnect(proxy.port, `user@127.0.0.1:${canary.port}`);
      tunnel.socket.destroy();
      expect([res.status, tunnel.status]).toEqual([400, 400]);
      expect(canary.hits).toBe(0);
    });
  });

  describe('When clients or upstreams disconnect mid-request', () => {
    beforeEach(() => start(true));

    it('should survive a client that leaves mid-body, and tear down the upstream request', async () => {
      const client = connect(proxy.port, '127.0.0.1');
      client.on('error', () => {});
      await new Promise((resolve) => client.once('connect', resolve));
      client.write(`POST http://127.0.0.1:${canary.port}/hang HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\npartial`);
      await expect.poll(() => canary.hits).toBe(1);
      client.destroy();
      expect(await settlesWithin(canary.hangClosed, 1_000)).toBe(true);
      expect((await proxyRequest(proxy.port, `http://127.0.0.1:${canary.port}/after`)).body).toBe(CANARY_BODY);
    });

    it('should tear down the upstream request when the client leaves while waiting for the response', async () => {
      const client = connect(proxy.port, '127.0.0.1');
      client.on('error', () => {});
      await new Promise((resolve) => client.once('connect', resolve));
      client.write(`GET http://127.0.0.1:${canary.port}/hang HTTP/1.1\r\nHost: x\r\n\r\n`);
      await expect.poll(() => canary.hits).toBe(1);
      client.destroy();
      expect(await settlesWithin(canary.hangClosed, 1_000)).toBe(true);
    });

    it('should survive a client that resets mid-tunnel and one that sends garbage', async () => {
      const { socket } = await proxyConnect(proxy.port, `127.0.0.1:${canary.port}`);
      socket.write('GET /hang HTTP/1.1\r\nHost: x\r\n\r\n');
      await expect.poll(() => canary.hits).toBe(1);
      socket.resetAndDestroy();
      expect(await settlesWithin(canary.hangClosed, 1_000)).toBe(true);
      const garbage = connect(proxy.port, '127.0.0.1');
      expect(await exchange(garbage, '\x00\x01 not http\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
      expect((await proxyRequest(proxy.port, `http://127.0.0.1:${canary.port}/after`)).status).toBe(200);
    });

    it('should survive an upstream that dies mid-response', async () => {
      await expect(proxyRequest(proxy.port, `http://127.0.0.1:${canary.port}/reset`)).rejects.toThrow();
      expect((await proxyRequest(proxy.port, `http://127.0.0.1:${canary.port}/after`)).status).toBe(200);
    });
  });

  describe('When closed', () => {
    it('should end open tunnels and stop listening', async () => {
      await start(true);
      const { socket } = await proxyConnect(proxy.port, `127.0.0.1:${canary.port}`);
      const ended = new Promise((resolve) => socket.once('close', resolve));
      await proxy.close();
      await ended;
      await expect(proxyRequest(proxy.port, `http://127.0.0.1:${canary.port}/`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    });
  });
});
