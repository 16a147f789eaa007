/** The parameters of a render that name a place the service itself connects to. */
export interface RenderTargets {
  url?: string | undefined;
  proxy?: string | undefined;
}

/** Checks one URL against the SSRF policy, naming the parameter it came from (throws target_not_allowed...). */
export type TargetCheck = (url: string, parameter: string) => Promise<void>;

/**
 * Checks every place a render would connect to, the page (`url`) and the caller's `proxy`, with `check`
 * (the SSRF policy of the caller's service). One function for the API call, a task's creation and each of
 * its runs, so a task is refused exactly where the API call is; inside a task query the parameters are
 * named with `prefix` (`query.proxy`).
 */
export async function checkRenderTargets(params: RenderTargets, check: TargetCheck, prefix = ''): Promise<void> {
  if (params.url) await check(params.url, `${prefix}url`);
  if (params.proxy) await check(params.proxy, `${prefix}proxy`);
}
