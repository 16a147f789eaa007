import { isTrueParam } from './coerce.js';

/** Render parameters reserved to some plans (auth-quota decides which plans may use them). */
export const PLAN_RESTRICTED_PARAMETERS = ['gpu_rendering', 'ip_location'] as const;
export type PlanRestrictedParameter = (typeof PLAN_RESTRICTED_PARAMETERS)[number];

/**
 * The plan-restricted parameters a render uses, from its parameters as given (query or body: `'true'`,
 * `'1'`) or as validated (`true`): the edge checks them before validation, the scheduler at every run.
 */
export function planRestrictedFeaturesOf(params: { gpu_rendering?: unknown; ip_location?: unknown }): PlanRestrictedParameter[] {
  const features: PlanRestrictedParameter[] = [];
  if (isTrueParam(params.gpu_rendering)) features.push('gpu_rendering');
  if (params.ip_location !== undefined && params.ip_location !== null && params.ip_location !== '') features.push('ip_location');
  return features;
}
