import { PLAN_RESTRICTED_PARAMETERS } from '@app/render-params';

export const PLANS = ['free', 'basic', 'growth', 'scale'] as const;
export type Plan = (typeof PLANS)[number];

export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

export interface PlanLimits {
  /** Requests per minute. */
  rateLimitPerMinute: number;
  /** Successful renders per calendar month (UTC). */
  monthlyQuota: number;
  /** Renders in flight at once (admitted and not yet finished). */
  rendersInFlight: number;
}

/** Defaults from spec/decisions.md; each can be overridden by configuration. */
export const DEFAULT_PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { rateLimitPerMinute: 5, monthlyQuota: 100, rendersInFlight: 2 },
  basic: { rateLimitPerMinute: 40, monthlyQuota: 2_000, rendersInFlight: 5 },
  growth: { rateLimitPerMinute: 80, monthlyQuota: 10_000, rendersInFlight: 10 },
  scale: { rateLimitPerMinute: 150, monthlyQuota: 50_000, rendersInFlight: 25 },
};

/** Features reserved to the Scale plan: scheduled tasks and the plan-restricted render parameters. */
const SCALE_ONLY_FEATURES: readonly string[] = ['tasks', ...PLAN_RESTRICTED_PARAMETERS];

export function planAllows(plan: Plan, feature: string): boolean {
  return plan === 'scale' || !SCALE_ONLY_FEATURES.includes(feature);
}
