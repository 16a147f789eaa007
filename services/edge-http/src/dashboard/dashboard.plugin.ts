import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { AuthQuota, Clock, ReservationOutcomes } from '../application/ports.js';
import type { GetRenderStatus } from '../results/render-status.js';
import type { TaskScheduler } from '../http/routes/tasks.routes.js';
import type { AccountConsole, RecentRenders } from './ports.js';
import type { DashboardSessions } from './sessions.js';
import type { SignInThrottle } from './sign-in-throttle.js';
import { SECURITY_HEADERS } from '../http/security-headers.js';
import { assertSameOrigin, isChange, requireSession } from './request-guard.js';
import { sessionRoutes } from './routes/session.routes.js';
import { accountRoutes } from './routes/account.routes.js';
import { dashboardTaskRoutes } from './routes/tasks.routes.js';
import { dashboardRendersRoutes } from './routes/renders.routes.js';
import { formatsRoutes } from './routes/formats.routes.js';

export interface DashboardOptions {
  sessions: DashboardSessions;
  /** Failed sign-ins, slowed per access key and client address (never from the account's rate limit). */
  signInThrottle: SignInThrottle;
  console: AccountConsole;
  authQuota: AuthQuota;
  /** Settles the quota a dashboard change reserved (a task creation), as the API's requests do. */
  reservations?: ReservationOutcomes | undefined;
  clock: Clock;
  scheduler?: TaskScheduler | undefined;
  renders?: { recent: RecentRenders; getRenderStatus: GetRenderStatus } | undefined;
  publicUrl?: string | undefined;
}

/** The page's files: the HTML and CSS beside the compiled browser modules (dist/dashboard/web). */
const WEB_ROOT = fileURLToPath(new URL('./web/', import.meta.url));

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
        await signedIn.register(accountRoutes, opts);
        if (opts.scheduler) {
          await signedIn.register(dashboardTaskRoutes, {
            scheduler: opts.scheduler,
            console: opts.console,
            reservations: opts.reservations,
            publicUrl: opts.publicUrl,
          });
        }
        if (opts.renders) await signedIn.register(dashboardRendersRoutes, { ...opts.renders, clock: opts.clock, publicUrl: opts.publicUrl });
      });
    },
    { prefix: '/dashboard/api' },
  );
}
