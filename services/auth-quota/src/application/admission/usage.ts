import type { OpenAccountState } from '../../domain/account/account.js';
import type { Plan, PlanLimits } from '../../domain/account/plans.js';
import { inFlight, peekRate, quotaUsage } from '../../domain/limits/account-limits.js';
import type { Clock } from '../ports.js';
import type { LimitsAccess } from './limits-access.js';
import type { AccountUsage } from './types.js';

/** An account's usage as GET /v1/usage reports it, read from its shared limits (committed usage's one count). */
export function usageReport(deps: {
  openAccount: (accountId: string) => Promise<OpenAccountState>;
  limitsAccess: LimitsAccess;
  clock: Clock;
  limits: Record<Plan, PlanLimits>;
}) {
  return async (accountId: string): Promise<AccountUsage> => {
    const account = await deps.openAccount(accountId);
    const plan = deps.limits[account.plan];
    const nowMs = deps.clock.now().getTime();
    const state = await deps.limitsAccess.read(accountId);
    return {
      usage: quotaUsage(state, plan.monthlyQuota, nowMs),
      rateLimit: peekRate(state, plan.rateLimitPerMinute, nowMs),
      renders: { limit: plan.rendersInFlight, inFlight: inFlight(state, nowMs) },
    };
  };
}
