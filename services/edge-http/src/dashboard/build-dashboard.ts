import type { FastifyInstance } from 'fastify';
import type { WebhookState } from '@app/render-contracts';
import { BUCKETS, type Kvm } from '@app/messaging';
import type { Admitter, Clock, ReservationOutcomes } from '../application/ports.js';
import type { GetRenderStatus, RecentRenders } from '../results/index.js';
import type { TaskScheduler } from '../tasks/index.js';
import { dashboardPlugin } from './dashboard.plugin.js';
import { grpcAccountConsole } from './grpc-account-console.js';
import { kvSessionStore } from './kv-session-store.js';
import { kvFailureCounters } from './kv-failure-counters.js';
import { signInThrottle } from './sign-in-throttle.js';
import { dashboardSessions } from './sessions.js';

/**
 * Wiring of the dashboard (part of the composition root): auth-quota's console, the shared session store.
 * `pages` registers it on the edge's server, beside the API.
 */
export async function buildDashboard(d: {
  /** auth-quota's replicas, as AUTH_QUOTA_ADDR lists them. */
  address: string;
  admitter: Admitter;
  reservations: ReservationOutcomes;
  kvm: Kvm;
  clock: Clock;
  scheduler: TaskScheduler;
  renders: { recent: RecentRenders; getRenderStatus: GetRenderStatus; deliveryState?: (id: string) => Promise<WebhookState | undefined> };
  publicUrl: string | undefined;
}): Promise<{ pages(app: FastifyInstance): Promise<void>; close(): void }> {
  const accountConsole = grpcAccountConsole(d.address);
  const store = kvSessionStore(await d.kvm.open(BUCKETS.dashboardSessions.name));
  const options = {
    sessions: dashboardSessions({ store, console: accountConsole, clock: d.clock }),
    signInThrottle: signInThrottle({ counters: kvFailureCounters(await d.kvm.open(BUCKETS.signInFailures.name)), clock: d.clock }),
    console: accountConsole,
    admitter: d.admitter,
    reservations: d.reservations,
    clock: d.clock,
    scheduler: d.scheduler,
    renders: d.renders,
    publicUrl: d.publicUrl,
  };
  return {
    pages: (app) => dashboardPlugin(app, options),
    close: () => accountConsole.close(),
  };
}
