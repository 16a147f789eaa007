import { ValidationError } from '@app/errors';
import { checkTargetUrl } from '@app/net-guard';
import type { RenderParams } from '@app/proto/render';

/** How renders may leave through a proxy other than the egress guard. */
export interface NetworkRouting {
  /** Self-hosted installs and tests: a caller's proxy may be on a private address. */
  allowPrivate: boolean;
  /** ip_location: country code → proxy URL (`http://user:password@host:port`), from IP_LOCATION_PROXIES. */
  ipLocationProxies: Readonly<Record<string, string>>;
}

/** The proxy a render goes through, when it is not the pool's own egress (the guard). */
export interface Route {
  proxy?:
    | {
        /** The proxy's URL, credentials included (they stay with the render's relay, never in the browser). */
        url: URL;
        /** The addresses the SSRF check resolved and accepted: the only ones dialled (absent: an operator's proxy). */
        addresses?: readonly string[] | undefined;
      }
    | undefined;
}

/** Members of the EU among the ip_location countries: `eu` picks one of those configured. */
const EU_COUNTRIES = ['de', 'fr'];

type Check = typeof checkTargetUrl;

/**
 * The route of a render: direct (through the egress guard), the caller's `proxy` (its host must pass
 * the SSRF check, and the proxy, http or https, is dialled at the addresses that were checked), or the
 * proxy configured for `ip_location`.
 */
export async function routeFor(params: RenderParams, routing: NetworkRouting, check: Check = checkTargetUrl): Promise<Route> {
  if (params.proxy) {
    const { url, addresses } = await check(params.proxy, { parameter: 'proxy', allowPrivate: routing.allowPrivate });
    return { proxy: { url, addresses } };
  }
  if (params.ip_location) {
    const configured = proxyForCountry(params.ip_location, routing.ipLocationProxies);
    if (!configured || !URL.canParse(configured)) {
      throw new ValidationError([
        { parameter: 'ip_location', message: `ip_location ${params.ip_location} is not available on this server (no proxy is configured for it)` },
      ]);
    }
    return { proxy: { url: new URL(configured) } };
  }
  return {};
}

function proxyForCountry(country: string, proxies: Readonly<Record<string, string>>): string | undefined {
  if (proxies[country]) return proxies[country];
  if (country !== 'eu') return undefined;
  const members = EU_COUNTRIES.filter((c) => proxies[c]);
  return members.length > 0 ? proxies[members[Math.floor(Math.random() * members.length)]!] : undefined;
}
