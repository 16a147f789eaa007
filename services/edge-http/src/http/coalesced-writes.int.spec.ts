import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { currentTraceId, shutdownTelemetry, startTelemetry, traceIncomingRequests } from '@app/telemetry';
import { coalesceResponseWrites } from './coalesced-writes.js';

// With the service's telemetry running (spans not recorded, their context propagated, as in production).
beforeAll(() => void startTelemetry('coalesced-writes-test'));
afterAll(() => shutdownTelemetry());

interface Seen {
  handled: number;
  /** Per request (by its `n`): its trace id when handled, and when its response was written. */
  handledIn: Map<string, string | undefined>;
  writtenIn: Map<string, string | undefined>;
  /** How many requests had been handled when each response was written. */
  handledAtWrite: number[];
  sentAtOnce: boolean[];
  writtenByTurnEnd: boolean[];
}

async function startApp(): Promise<{ app: FastifyInstance; port: number; seen: Seen }> {
  const seen: Seen = { handled: 0, handledIn: new Map(), writtenIn: new Map(), handledAtWrite: [], sentAtOnce: [], writtenByTurnEnd: [] };
  const app = Fastify({ serverFactory: (handler) => createServer(traceIncomingRequests(handler)) });
  coalesceResponseWrites(app);
  // Runs after the coalescing hook: at the moment the response is written.
  app.addHook('onSend', (request, _reply, payload, done) => {
    const n = (request.query as { n?: string }).n;
    if (n !== undefined) {
      seen.writtenIn.set(n, currentTraceId());
      seen.handledAtWrite.push(seen.handled);
    }
    done(null, payload);
  });
  app.get('/echo', (request, reply) => {
    const n = (request.query as { n: string }).n;
    seen.handled++;
    seen.handledIn.set(n, currentTraceId());
    void reply.send(`n=${n}`);
    seen.sentAtOnce.push(reply.raw.headersSent);
    setImmediate(() => seen.writtenByTurnEnd.push(reply.raw.headersSent));
    return reply;
  });
  app.get('/later', async (request) => {
    await new Promise((resolve) => setTimeout(resolve, Number((request.query as { ms: string }).ms)));
    return { n: (request.query as { n: string }).n };
  });
  app.get('/fails', async () => {
    throw Object.assign(new Error('no such thing'), { statusCode: 400 });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, port: (app.server.address() as AddressInfo).port, seen };
}

/** Sends `requests` in one write on one connection (pipelined) and reads until `responses` are in. */
function pipelined(port: number, requests: string[], responses: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if ((text.match(/HTTP\/1\.1 /g) ?? []).length === responses) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.write(requests.join(''));
  });
}

describe('Coalesced response writes', () => {
  describe('When ten pipelined requests arrive in one read', () => {
    it('should write none before all ten are handled, each in its own trace context, answered in order', async () => {
      const { app, port, seen } = await startApp();
      try {
        const ns = Array.from({ length: 10 }, (_, i) => String(i));
        const text = await pipelined(port, ns.map((n) => `GET /echo?n=${n} HTTP/1.1\r\nHost: x\r\n\r\n`), ns.length);

        expect(seen.handledAtWrite).toEqual(ns.map(() => 10));
        for (const n of ns) {
          expect(seen.handledIn.get(n)).toMatch(/^[0-9a-f]{32}$/);
          expect(seen.writtenIn.get(n)).toBe(seen.handledIn.get(n));
        }
        expect(new Set(seen.handledIn.values()).size).toBe(10);
        expect([...text.matchAll(/\r\n\r\n(n=\d+)/g)].map((m) => m[1])).toEqual(ns.map((n) => `n=${n}`));
      } finally {
        await app.close();
      }
    });
  });

  describe('When a handler sends its response', () => {
    it('should hold it only until the end of the event-loop turn', async () => {
      const { app, port, seen } = await startApp();
      try {
        const res = await fetch(`http://127.0.0.1:${port}/echo?n=7`);
        expect(await res.text()).toBe('n=7');
        expect(seen.sentAtOnce).toEqual([false]);
        expect(seen.writtenByTurnEnd).toEqual([true]);
      } finally {
        await app.close();
      }
    });
  });

  describe('When many requests of every kind are in flight at once', () => {
    it('should answer each with its own status and body', async () => {
      const { app, port } = await startApp();
      try {
        const calls = Array.from({ length: 60 }, (_, i) => {
          const kind = i % 4;
          const path = [`/echo?n=${i}`, `/later?n=${i}&ms=${i % 7}`, '/fails', `/missing/${i}`][kind]!;
          return fetch(`http://127.0.0.1:${port}${path}`).then(async (r) => ({ i, kind, status: r.status, body: await r.text() }));
        });
        for (const { i, kind, status, body } of await Promise.all(calls)) {
          if (kind === 0) expect({ status, body }).toEqual({ status: 200, body: `n=${i}` });
          if (kind === 1) expect({ status, body: JSON.parse(body) }).toEqual({ status: 200, body: { n: String(i) } });
          if (kind === 2) expect({ status, message: JSON.parse(body).message }).toEqual({ status: 400, message: 'no such thing' });
          if (kind === 3) expect(status).toBe(404);
        }
      } finally {
        await app.close();
      }
    });
  });
});
