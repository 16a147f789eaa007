import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebhookState } from '@app/render-contracts';
import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { Admitter, Clock, ReservationOutcomes } from '../application/ports.js';
import type { GetRenderStatus, RecentRenders } from '../results/index.js';
import type { TaskScheduler } from '../tasks/index.js';
import { taskRoutes } from '../tasks/index.js';
import { SECURITY_HEADERS, admissionPlugin } from '../web/index.js';
import type { AccountConsole } from './ports.js';
import type { DashboardSessions } from './sessions.js';
import type { SignInThrottle } from './sign-in-throttle.js';
import { assertSameOrigin, isChange, requireSession } from './request-guard.js';
import { sessionRoutes } from './routes/session.routes.js';
import { accountRoutes } from './routes/account.routes.js';
import { dashboardRendersRoutes } from './routes/renders.routes.js';
import { formatsRoutes } from './routes/formats.routes.js';
import { taskDeliveriesRoutes } from './routes/task-deliveries.routes.js';

export interface DashboardOptions {
  sessions: DashboardSessions;
  /** Failed sign-ins, slowed per access key and client address (never from the account's rate limit). */
  signInThrottle: SignInThrottle;
  console: AccountConsole;
  /** The API's admission: the account's usage, and its task changes admitted as the API's are. */
  admitter: Admitter;
  /** Settles the quota a dashboard change reserved (a task creation), as the API's requests do. */
  reservations: ReservationOutcomes;
  clock: Clock;
  scheduler?: TaskScheduler | undefined;
  renders?: { recent: RecentRenders; getRenderStatus: GetRenderStatus; deliveryState?: (id: string) => Promise<WebhookState | undefined> } | undefined;
  publicUrl?: string | undefined;
}

/** The page's files: the build of the dashboard-web package (its HTML, CSS and compiled browser modules). */
const WEB_ROOT = join(dirname(createRequire(import.meta.url).resolve('@app/dashboard-web/package.json')), 'dist');

/** Every asset from the service itself; nothing else may load (no CDN, no inline script). */
const PAGE_CSP = [
  "default-src 'self'",
  "img-src 'self' blob: data:",
  "frame-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The account dashboard at /dashboard: a small framework-free page and its JSON API under
 * /dashboard/api, which uses auth-quota, the scheduler and the render status store as the public API does.
 */
export async function dashboardPlugin(app: FastifyInstance, opts: DashboardOptions) {
  await app.register(cookie);

  app.addHook('onSend', async (request, reply) => {
    void reply.headers(SECURITY_HEADERS.pagesOnly).header('content-security-policy', PAGE_CSP).header('x-frame-options', 'DENY');
    if (request.url.startsWith('/dashboard/api')) void reply.header('cache-control', 'no-store');
  });

  await app.register(fastifyStatic, { root: WEB_ROOT, prefix: '/dashboard/assets/', index: false, cacheControl: true, maxAge: 0 });
  const page = async (_request: unknown, reply: { sendFile(name: string): unknown }) => reply.sendFile('index.html');
  app.get('/dashboard', page);
  app.get('/dashboard/', page);

  await app.register(
    async (api) => {
      // Changes come from this origin only; sign-in included (it has no session to hold a token yet).
      api.addHook('onRequest', async (request) => {
        if (isChange(request)) assertSameOrigin(request, opts.publicUrl);
      });
      await api.register(sessionRoutes, { sessions: opts.sessions, throttle: opts.signInThrottle, clock: opts.clock });
      await api.register(formatsRoutes);
      await api.register(async (signedIn) => {
        signedIn.addHook('preHandler', requireSession(opts.sessions));
        await signedIn.register(accountRoutes, { ...opts, authQuota: opts.admitter });
        if (opts.scheduler) {
          const { scheduler, admitter, reservations, publicUrl } = opts;
          // The API's task routes and admission, for the session's account: changes are admitted and
          // settled as /v1/tasks's are; reads cost nothing.
          await signedIn.register(async (tasks) => {
            const accountOf = (request: FastifyRequest) => request.dashboardSession!.account.accountId;
            await tasks.register(admissionPlugin, { admitter, reservations, accountOf });
            await tasks.register(taskRoutes, { scheduler, publicUrl, path: '/tasks', accountOf, admitReads: false });
            const deliveryState = opts.renders?.deliveryState;
            if (deliveryState) await tasks.register(taskDeliveriesRoutes, { scheduler, deliveryState });
          });
        }
        if (opts.renders) await signedIn.register(dashboardRendersRoutes, { ...opts.renders, clock: opts.clock, publicUrl: opts.publicUrl });
      });
    },
    { prefix: '/dashboard/api' },
  );
}
