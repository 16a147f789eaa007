import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { currentTraceId, shutdownTelemetry, startTelemetry, traceIncomingRequests } from '@app/telemetry';
import { coalesceSocketWrites } from './coalesced-writes.js';

// With the service's telemetry running (spans not recorded, their context propagated, as in production).
beforeAll(() => void startTelemetry('coalesced-writes-test'));
afterAll(() => shutdownTelemetry());

interface Seen {
  connections: number;
  /** The connections of the requests handled so far, in order. */
  sockets: Socket[];
  /** After each send: whether no connection handled so far had written its response yet. */
  nonePending: boolean[];
  writtenByTurnEnd: boolean[];
  /** Per request (by its `n`): its trace id when handled, and when its response had been written. */
  handledIn: Map<string, string | undefined>;
  finishedIn: Map<string, string | undefined>;
  logged: string[];
}

async function startApp(): Promise<{ app: FastifyInstance; port: number; seen: Seen }> {
  const seen: Seen = { connections: 0, sockets: [], nonePending: [], writtenByTurnEnd: [], handledIn: new Map(), finishedIn: new Map(), logged: [] };
  const app = Fastify({
    logger: { level: 'warn', stream: { write: (line: string) => void seen.logged.push(line) } },
    serverFactory: (handler) => {
      const server = createServer(traceIncomingRequests(handler));
      server.on('connection', () => seen.connections++);
      coalesceSocketWrites(server);
      return server;
    },
  });
  // The response's 'finish': once the connection's write of it has completed.
  app.addHook('onResponse', (request, _reply, done) => {
    const n = (request.query as { n?: string }).n;
    if (n !== undefined) seen.finishedIn.set(n, currentTraceId());
    done();
  });
  app.get('/echo', (request, reply) => {
    const n = (request.query as { n: string }).n;
    seen.handledIn.set(n, currentTraceId());
    void reply.send(`n=${n}`);
    seen.sockets.push(request.raw.socket);
    seen.nonePending.push(seen.sockets.every((s) => s.writableLength > 0));
    setImmediate(() => seen.writtenByTurnEnd.push(request.raw.socket.writableLength === 0));
    return reply;
  });
  app.get('/later', async (request) => {
    await new Promise((resolve) => setTimeout(resolve, Number((request.query as { ms: string }).ms)));
    return { n: (request.query as { n: string }).n };
  });
  // Fastify allows an async handler to send without returning the reply.
  app.get('/sends', async (request, reply) => {
    await new Promise((resolve) => setImmediate(resolve));
    void reply.code(202).send(`sent ${(request.query as { n: string }).n}`);
  });
  app.get('/fails', async () => {
    throw Object.assign(new Error('no such thing'), { statusCode: 400 });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port, seen };
}

/** `count` connections, open on both ends. */
async function connections(port: number, seen: Seen, count: number): Promise<Socket[]> {
  const sockets = await Promise.all(
    Array.from({ length: count }, () => new Promise<Socket>((resolve, reject) => connect(port, '127.0.0.1').once('connect', function (this: Socket) { resolve(this); }).once('error', reject))),
  );
  while (seen.connections < count) await new Promise((resolve) => setTimeout(resolve, 5));
  return sockets;
}

/** Reads one whole response (Content-Length framed) from `socket`. */
function responseOf(socket: Socket): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      const head = text.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? NaN);
      if (head >= 0 && text.length >= head + 4 + length) resolve({ status: Number(text.slice(9, 12)), body: text.slice(head + 4, head + 4 + length) });
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed before a whole response: ${JSON.stringify(text)}`)));
  });
}

describe('Coalesced socket writes', () => {
  let app: FastifyInstance;
  let port: number;
  let seen: Seen;
  beforeEach(async () => void ({ app, port, seen } = await startApp()));
  afterEach(() => app.close());

  describe('When ten requests on ten connections are read in one turn', () => {
    it('should write no response before all ten are handled, and complete each in its own trace context', async () => {
      const sockets = await connections(port, seen, 10);
      const responses = sockets.map(responseOf);
      // One synchronous loop: all ten are on the server's sockets before its next poll.
      sockets.forEach((socket, n) => socket.write(`GET /echo?n=${n} HTTP/1.1\r\nHost: x\r\n\r\n`));

      expect(await Promise.all(responses)).toEqual(sockets.map((_, n) => ({ status: 200, body: `n=${n}` })));
      expect(seen.nonePending).toEqual(sockets.map(() => true));
      for (const n of sockets.keys()) {
        expect(seen.handledIn.get(String(n))).toMatch(/^[0-9a-f]{32}$/);
        expect(seen.finishedIn.get(String(n))).toBe(seen.handledIn.get(String(n)));
      }
      expect(new Set(seen.handledIn.values()).size).toBe(10);
      sockets.forEach((socket) => socket.destroy());
    });
  });

  describe('When a handler sends its response', () => {
    it('should hold its bytes only until the end of the event-loop turn', async () => {
      const res = await fetch(`http://127.0.0.1:${port}/echo?n=7`);
      expect(await res.text()).toBe('n=7');
      expect(seen.nonePending).toEqual([true]);
      expect(seen.writtenByTurnEnd).toEqual([true]);
    });
  });

  describe('When a connection is written to and destroyed in the same turn', () => {
    it('should write what it was sent before destroying it', async () => {
      // As the edge answers a request Node's parser refused (headers too large): write, then destroy.
      app.server.removeAllListeners('clientError');
      app.server.on('clientError', (_err, socket) => {
        socket.write('HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 3\r\nConnection: close\r\n\r\nbig');
        socket.destroy();
      });
      const [socket] = await connections(port, seen, 1);
      const response = responseOf(socket!);
      socket!.write(`GET /echo?n=1 HTTP/1.1\r\nHost: x\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(await response).toEqual({ status: 431, body: 'big' });
    });
  });

  describe('When many requests of every kind are in flight at once', () => {
    it('should answer each with its own status and body, and log nothing', async () => {
      const calls = Array.from({ length: 60 }, (_, i) => {
        const kind = i % 5;
        const path = [`/echo?n=${i}`, `/later?n=${i}&ms=${i % 7}`, `/sends?n=${i}`, '/fails', `/missing/${i}`][kind]!;
        return fetch(`http://127.0.0.1:${port}${path}`).then(async (r) => ({ i, kind, status: r.status, body: await r.text() }));
      });
      for (const { i, kind, status, body } of await Promise.all(calls)) {
        if (kind === 0) expect({ status, body }).toEqual({ status: 200, body: `n=${i}` });
        if (kind === 1) expect({ status, body: JSON.parse(body) }).toEqual({ status: 200, body: { n: String(i) } });
        if (kind === 2) expect({ status, body }).toEqual({ status: 202, body: `sent ${i}` });
        if (kind === 3) expect({ status, message: JSON.parse(body).message }).toEqual({ status: 400, message: 'no such thing' });
        if (kind === 4) expect(status).toBe(404);
      }
      expect(seen.logged).toEqual([]);
    });
  });
});
