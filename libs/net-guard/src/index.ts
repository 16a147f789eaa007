export { isPublicAddress } from './address-policy.js';
export { checkTargetUrl, type CheckTargetOptions, type CheckedTarget } from './url-policy.js';
export { startEgressProxy, type EgressProxy, type EgressProxyOptions } from './egress-proxy.js';
export type { BlockedRequest } from './proxy-context.js';
export { pinnedLookup } from './pinned-lookup.js';
export { systemLookup, type LookupFn, type LookupAddress } from './lookup.js';
export * from './webhook-policy.js';
export { checkRenderTargets, type RenderTargets, type TargetCheck } from './render-targets.js';
