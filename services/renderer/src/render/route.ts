import { isIP } from 'node:net';
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

/** Per-render browser context settings when the render goes through a proxy. */
export interface Route {
  context?: { proxyServer: string; proxyBypassList: string[] } | undefined;
  credentials?: { username: string; password: string } | undefined;
}

/** Members of the EU among the ip_location countries: `eu` picks one of those configured. */
const EU_COUNTRIES = ['de', 'fr'];

type Check = typeof checkTargetUrl;

/**
 * The route of a render: direct (through the egress guard), the caller's `proxy` (its host must pass
 * the SSRF check, and a plain-http proxy is dialed at the address that was checked), or the proxy
 * configured for `ip_location`.
 */
export async function routeFor(params: RenderParams, routing: NetworkRouting, check: Check = checkTargetUrl): Promise<Route> {
  if (params.proxy) {
    const { url, addresses } = await check(params.proxy, { parameter: 'proxy', allowPrivate: routing.allowPrivate });
    const host = url.protocol === 'http:' && addresses[0] ? bracketed(addresses[0]) : url.host.replace(/:\d+$/, '');
    return viaProxy(url, host);
  }
  if (params.ip_location) {
    const configured = proxyForCountry(params.ip_location, routing.ipLocationProxies);
    if (!configured || !URL.canParse(configured)) {
      throw new ValidationError([
        { parameter: 'ip_location', message: `ip_location ${params.ip_location} is not available on this server (no proxy is configured for it)` },
      ]);
    }
    const url = new URL(configured);
    return viaProxy(url, url.hostname);
  }
  return {};
}

function proxyForCountry(country: string, proxies: Readonly<Record<string, string>>): string | undefined {
  if (proxies[country]) return proxies[country];
  if (country !== 'eu') return undefined;
  const members = EU_COUNTRIES.filter((c) => proxies[c]);
  return members.length > 0 ? proxies[members[Math.floor(Math.random() * members.length)]!] : undefined;
}

function viaProxy(url: URL, host: string): Route {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const route: Route = {
    // `<-loopback>`: loopback targets go through the proxy too (they are the proxy's own, not ours).
    context: { proxyServer: `${url.protocol}//${host}:${port}`, proxyBypassList: ['<-loopback>'] },
  };
  if (url.username) route.credentials = { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  return route;
}

function bracketed(address: string): string {
  return isIP(address) === 6 ? `[${address}]` : address;
}
