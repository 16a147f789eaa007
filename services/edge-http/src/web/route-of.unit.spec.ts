import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { matchRoutes, routeOf, type MatchedRoute } from './route-of.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    tag?: string;
  }
}

async function server() {
  const app = Fastify();
  matchRoutes(app);
  const seen: Array<{ hook: string; route: MatchedRoute; fromOwnHook: boolean }> = [];
  const record = (hook: string) => (request: import('fastify').FastifyRequest) => void seen.push({ hook, route: routeOf(request), fromOwnHook: request.matchedRoute !== null });
  app.addHook('onRequest', (request, reply, done) => {
    record('server onRequest')(request);
    if (request.headers['x-refuse']) return void reply.code(503).send({ refused: true });
    done();
  });
  app.addHook('preHandler', (request, _reply, done) => {
    record('preHandler')(request);
    done();
  });
  const ownHookRan: string[] = [];
  app.get('/v1/things/:id', { config: { tag: 'things' }, onRequest: (_request, _reply, done) => void (ownHookRan.push('own'), done()) }, async () => ({ ok: true }));
  app.post('/v1/other', { config: { tag: 'other' } }, async () => ({ ok: true }));
  await app.ready();
  return { app, seen, ownHookRan };
}

describe('routeOf', () => {
  it("should give the matched route's template and config from the route's own first hook on", async () => {
    const { app, seen, ownHookRan } = await server();
    expect((await app.inject({ method: 'GET', url: '/v1/things/42' })).statusCode).toBe(200);
    expect(seen.map((s) => [s.hook, s.route.url, s.route.config.tag, s.fromOwnHook])).toEqual([
      // The server's hooks run before the route's own: the route comes from Fastify's routeOptions there.
      ['server onRequest', '/v1/things/:id', 'things', false],
      ['preHandler', '/v1/things/:id', 'things', true],
    ]);
    // The route's own onRequest hook still runs, after the one matchRoutes put first.
    expect(ownHookRan).toEqual(['own']);
    expect((await app.inject({ method: 'POST', url: '/v1/other', payload: {} })).statusCode).toBe(200);
    expect(seen.at(-1)!.route).toMatchObject({ url: '/v1/other', config: { tag: 'other' } });
  });

  it('should still give the route of a request a server hook answered before its route ran', async () => {
    const { app, seen } = await server();
    expect((await app.inject({ method: 'GET', url: '/v1/things/1', headers: { 'x-refuse': '1' } })).statusCode).toBe(503);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.route.url).toBe('/v1/things/:id');
  });

  it('should give no template for a request no route matched', async () => {
    const { app, seen } = await server();
    expect((await app.inject({ method: 'GET', url: '/nowhere' })).statusCode).toBe(404);
    expect(seen[0]!.route.url).toBeUndefined();
  });
});
