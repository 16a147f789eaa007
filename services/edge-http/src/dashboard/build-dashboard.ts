import { BUCKETS, type Kvm } from '@app/messaging';
import type { AuthQuota, Clock, ReservationOutcomes } from '../application/ports.js';
import type { GetRenderStatus } from '../results/render-status.js';
import type { TaskScheduler } from '../http/routes/tasks.routes.js';
import type { DashboardOptions } from './dashboard.plugin.js';
import { grpcAccountConsole } from './grpc-account-console.js';
import { kvSessionStore } from './kv-session-store.js';
import { kvFailureCounters } from './kv-failure-counters.js';
import { signInThrottle } from './sign-in-throttle.js';
import type { RecentRenders } from './ports.js';
import { dashboardSessions } from './sessions.js';

/** Wiring of the dashboard (part of the composition root): auth-quota's console, the shared session store. */
export async function buildDashboard(d: {
  /** auth-quota's replicas, as AUTH_QUOTA_ADDR lists them. */
  address: string;
  reservations: ReservationOutcomes;
  kvm: Kvm;
  clock: Clock;
  authQuota: AuthQuota;
  scheduler: TaskScheduler;
  renders: { recent: RecentRenders; getRenderStatus: GetRenderStatus };
  publicUrl: string | undefined;
}): Promise<{ options: DashboardOptions; close(): void }> {
  const accountConsole = grpcAccountConsole(d.address);
  const store = kvSessionStore(await d.kvm.open(BUCKETS.dashboardSessions.name));
  return {
    options: {
      sessions: dashboardSessions({ store, console: accountConsole, clock: d.clock }),
      signInThrottle: signInThrottle({ counters: kvFailureCounters(await d.kvm.open(BUCKETS.signInFailures.name)), clock: d.clock }),
      console: accountConsole,
      authQuota: d.authQuota,
      reservations: d.reservations,
      clock: d.clock,
      scheduler: d.scheduler,
      renders: d.renders,
      publicUrl: d.publicUrl,
    },
    close: () => accountConsole.close(),
  };
}
