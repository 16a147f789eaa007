import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createLogger } from '@app/logging';
import { AppError, errors } from '@app/errors';
import type { AdmitRequest, Admitter, ReservationOutcomes } from './application/ports.js';
import type { TaskScheduler } from './tasks/index.js';
import type { RenderSync } from './application/render-sync.js';
import { buildServer } from './http/index.js';
import { dashboardPlugin, dashboardSessions, signInThrottle, type AccountConsole, type ConsoleAccount, type SessionRecord } from './dashboard/index.js';
import { memoryFailureCounters } from './dashboard/testing/memory-failure-counters.js';

// The dashboard's HTTP surface mounted on the API's server as app.ts mounts it, with fake ports: cookie
// attributes, CSRF and origin checks, sessions.
const account: ConsoleAccount = {
  accountId: 'acc_1',
  name: 'Demo',
  plan: 'scale',
  signatureRequired: false,
  billingStatus: 'paid',
  rateLimitPerMinute: 150,
  monthlyQuota: 50_000,
  keyGeneration: 'g1',
};
let generation = 'g1';
const revealed: string[] = [];
const console_ = {
  signIn: async (accessKey: string, secretKey: string) => {
    if (accessKey !== 'ak_1' || secretKey !== 'sk_1') throw new AppError('keys_invalid', 'The access key and secret key do not match an account.');
    return { ...account, keyGeneration: generation };
  },
  account: async () => ({ ...account, keyGeneration: generation }),
  revealSecretKey: async (id: string) => {
    revealed.push(id);
    return 'sk_1';
  },
  dailyUsage: async () => ({ month: '2026-11', days: [{ day: '2026-11-01', used: 4 }] }),
} as unknown as AccountConsole;
// The API's admission as the dashboard's task changes reach it: what it was asked, and a plan to refuse.
const admitted: AdmitRequest[] = [];
let plan = 'scale';
const authQuota = {
  tryNow: () => undefined,
  leasesKey: () => false,
  admit: async (request: AdmitRequest) => {
    admitted.push(request);
    if (plan !== 'scale') throw errors.planUpgradeRequired('tasks');
    return { account: { accountId: request.accountId, plan }, rateLimit: { limit: 150, remaining: 149, resetUnix: 1 }, reservationId: 'res-7' };
  },
  usage: async () => ({ hits: { quota: 100, used: 4, remaining: 96 }, concurrency: { limit: 40, remaining: 40, reset: 0 } }),
} as unknown as Admitter;
const reservations: ReservationOutcomes = { ended: vi.fn(async () => undefined) };
const task = { id: 3, name: 'n', api: 'screenshot', query: 'url=x', frequency: 'every_day', crontab: '', timezone: 'Etc/UTC', enabled: true, created: 1, last_run: null, runs: 0 };
const scheduler = {
  list: vi.fn<TaskScheduler['list']>(async () => [task]),
  create: vi.fn<TaskScheduler['create']>(async () => task),
  remove: vi.fn<TaskScheduler['remove']>(async () => {
    throw new AppError('task_not_found', 'Task 3 was not found.');
  }),
} as unknown as TaskScheduler;
const records = new Map<string, SessionRecord>();
const clock = { now: () => new Date() };

let app: FastifyInstance;

beforeAll(async () => {
  app = await buildServer({
    logger: createLogger('edge-http-test', { level: 'silent' }),
    bodyLimitBytes: 1024 * 1024,
    authQuota,
    renderSync: (async () => undefined) as unknown as RenderSync,
    reservations,
    health: async () => ({}),
    pages: (pages) =>
      dashboardPlugin(pages, {
        sessions: dashboardSessions({
          store: { put: async (id, r) => void records.set(id, r), get: async (id) => records.get(id), remove: async (id) => void records.delete(id) },
          console: console_,
          clock,
        }),
        signInThrottle: signInThrottle({ counters: memoryFailureCounters(), clock }),
        console: console_,
        admitter: authQuota,
        reservations,
        clock,
        scheduler,
      }),
  });
});

afterAll(async () => app.close());

const signIn = async () => {
  const res = await app.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { access_key: 'ak_1', secret_key: 'sk_1' } });
  const token = /dashboard_session=([^;]+)/.exec(String(res.headers['set-cookie']))![1]!;
  return { res, token, csrf: res.json<{ csrf_token: string }>().csrf_token };
};

describe('Dashboard HTTP', () => {
  describe('When the playground asks for the output formats', () => {
    it('should answer the formats of every operation as the API validates them', async () => {
      const res = await app.inject({ method: 'GET', url: '/dashboard/api/formats' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ formats: { screenshot: ['jpeg', 'png', 'webp', 'gif'], pdf: ['pdf'], scrape: ['html', 'md'], screencast: ['mp4', 'webm', 'mov', 'avi'] } });
    });
  });

  describe('When the page is asked for', () => {
    it('should serve it and its assets from the service with a strict CSP', async () => {
      const page = await app.inject({ method: 'GET', url: '/dashboard' });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.headers['content-security-policy']).toContain("default-src 'self'");
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['cross-origin-opener-policy']).toBe('same-origin');
      expect(page.headers['x-dns-prefetch-control']).toBe('off');
      expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//);
      // (From the sources here: the compiled modules are checked by the e2e suite against the build.)
      for (const asset of ['/dashboard/assets/app.css']) {
        expect((await app.inject({ method: 'GET', url: asset })).statusCode).toBe(200);
      }
    });
  });

  describe('When the owner signs in', () => {
    it('should set the session cookie HttpOnly, Secure, SameSite=Strict for 12 hours, with nothing secret in it', async () => {
      const { res, token } = await signIn();
      expect(res.statusCode).toBe(200);
      const cookie = String(res.headers['set-cookie']);
      for (const attribute of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Max-Age=43200', 'Path=/dashboard']) expect(cookie).toContain(attribute);
      expect(cookie).not.toContain('sk_1');
      expect(cookie).not.toContain('ak_1');
      expect(res.headers['cache-control']).toBe('no-store');
      const overview = await app.inject({ method: 'GET', url: '/dashboard/api/overview', cookies: { dashboard_session: token } });
      expect(overview.json()).toMatchObject({ plan: 'scale', usage: { used: 4 }, daily: { days: [{ used: 4 }] } });
    });

    it('should refuse wrong keys without a cookie, and name both missing fields', async () => {
      const wrong = await app.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: { access_key: 'ak_1', secret_key: 'sk_2' } });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json()).toMatchObject({ code: 'keys_invalid' });
      expect(wrong.headers['set-cookie']).toBeUndefined();
      const empty = await app.inject({ method: 'POST', url: '/dashboard/api/sign-in', payload: {} });
      expect(empty.statusCode).toBe(400);
      expect(empty.json<{ details: { parameter: string }[] }>().details.map((d) => d.parameter)).toEqual(['access_key', 'secret_key']);
    });
  });

  describe('When a change is sent', () => {
    it('should need the CSRF token and this origin', async () => {
      const { token, csrf } = await signIn();
      const cookies = { dashboard_session: token };
      const before = revealed.length;
      expect((await app.inject({ method: 'POST', url: '/dashboard/api/keys/secret', cookies })).json()).toMatchObject({ statusCode: 403, code: 'csrf_token_invalid' });
      expect((await app.inject({ method: 'POST', url: '/dashboard/api/keys/secret', cookies, headers: { 'x-csrf-token': 'x' } })).statusCode).toBe(403);
      const crossSite = await app.inject({ method: 'POST', url: '/dashboard/api/keys/secret', cookies, headers: { 'x-csrf-token': csrf, origin: 'https://evil.example' } });
      expect(crossSite.statusCode).toBe(403);
      const fetchSite = await app.inject({ method: 'POST', url: '/dashboard/api/keys/secret', cookies, headers: { 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' } });
      expect(fetchSite.statusCode).toBe(403);
      // The same host and port on another scheme is another origin (inject speaks http to localhost:80).
      const otherScheme = await app.inject({ method: 'POST', url: '/dashboard/api/keys/secret', cookies, headers: { 'x-csrf-token': csrf, origin: 'https://localhost:80' } });
      expect(otherScheme.json()).toMatchObject({ statusCode: 403, code: 'csrf_token_invalid' });
      expect(revealed.length).toBe(before);
      const sameOrigin = await app.inject({ method: 'POST', url: '/dashboard/api/keys/secret', cookies, headers: { 'x-csrf-token': csrf, origin: 'http://localhost:80' } });
      expect(sameOrigin.json()).toEqual({ secret_key: 'sk_1' });
      const ok = await app.inject({ method: 'POST', url: '/dashboard/api/keys/secret', cookies, headers: { 'x-csrf-token': csrf } });
      expect(ok.json()).toEqual({ secret_key: 'sk_1' });
    });
  });

  describe('When the keys were rotated elsewhere', () => {
    it('should end the session', async () => {
      const { token } = await signIn();
      generation = 'g2';
      const res = await app.inject({ method: 'GET', url: '/dashboard/api/session', cookies: { dashboard_session: token } });
      generation = 'g1';
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ code: 'session_expired' });
    });
  });

  describe('When the owner changes tasks', () => {
    beforeEach(() => {
      admitted.length = 0;
      plan = 'scale';
      vi.clearAllMocks();
    });
    const settled = () => new Promise((r) => setTimeout(r, 20));

    it("should admit a creation through the API's admission for the session's account and settle its reservation", async () => {
      const { token, csrf } = await signIn();
      const res = await app.inject({ method: 'POST', url: '/dashboard/api/tasks', cookies: { dashboard_session: token }, headers: { 'x-csrf-token': csrf }, payload: { name: 'n', api: 'screenshot', query: 'url=x', frequency: 'every_day' } });
      expect(res.statusCode).toBe(201);
      expect(admitted).toEqual([expect.objectContaining({ accountId: 'acc_1', accessKey: '', usage: 'task_create', features: ['tasks'] })]);
      expect(vi.mocked(scheduler.create).mock.calls[0]![0]).toBe('acc_1');
      await settled();
      expect(reservations.ended).toHaveBeenCalledWith({ accountId: 'acc_1', reservationId: 'res-7', succeeded: true });
    });

    it('should settle a change that failed as failed, and refuse an account without the plan before the scheduler hears of it', async () => {
      const { token, csrf } = await signIn();
      const asked = { cookies: { dashboard_session: token }, headers: { 'x-csrf-token': csrf } };
      const gone = await app.inject({ method: 'DELETE', url: '/dashboard/api/tasks/3', ...asked });
      expect(gone.json()).toMatchObject({ statusCode: 404, code: 'task_not_found' });
      await settled();
      expect(reservations.ended).toHaveBeenCalledWith({ accountId: 'acc_1', reservationId: 'res-7', succeeded: false });
      plan = 'basic';
      const refused = await app.inject({ method: 'POST', url: '/dashboard/api/tasks', ...asked, payload: { name: 'n' } });
      expect(refused.json()).toMatchObject({ statusCode: 402, code: 'plan_upgrade_required' });
      expect(scheduler.create).not.toHaveBeenCalled();
    });

    it('should read the tasks without an admission', async () => {
      const { token } = await signIn();
      const res = await app.inject({ method: 'GET', url: '/dashboard/api/tasks', cookies: { dashboard_session: token } });
      expect(res.json()).toEqual({ tasks: [task] });
      expect(admitted).toEqual([]);
    });
  });
});
