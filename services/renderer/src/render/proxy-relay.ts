import type { lookup as dnsLookup } from 'node:dns';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Server } from 'proxy-chain';
import { pinnedLookup } from '@app/net-guard';
import { untraced } from '@app/telemetry';
import type { Route } from './route.js';

export interface OpenRoute {
  /** Browser context settings of the render (absent: the pool's own egress). */
  context: { proxyServer: string; proxyBypassList: string[] } | undefined;
  close(): Promise<void>;
}

/**
 * A render through a proxy reaches it through a relay of its own on 127.0.0.1 (proxy-chain), which
 * - adds the proxy's credentials to every request and tunnel, so the browser never holds them: no
 *   challenge from a site the page loads can ever be answered with them;
 * - dials the proxy, http or https, only at the addresses the SSRF check accepted (TLS still checks the
 *   proxy's certificate against its name), so DNS rebinding cannot move it;
 * - passes the page's requests on untraced: exactly as the browser made them, no trace context added.
 * The relay lives for one render.
 */
export async function openRoute(route: Route): Promise<OpenRoute> {
  if (!route.proxy) return { context: undefined, close: async () => undefined };
  const upstreamProxyUrl = route.proxy.url.href;
  const lookup = route.proxy.addresses ? (pinnedLookup(route.proxy.addresses) as unknown as typeof dnsLookup) : undefined;
  const httpAgent = untraced(new HttpAgent({ keepAlive: true }));
  const httpsAgent = untraced(new HttpsAgent({ keepAlive: true }));
  const relay = new Server({
    host: '127.0.0.1',
    port: 0,
    prepareRequestFunction: () => ({ requestAuthentication: false, upstreamProxyUrl, dnsLookup: lookup, httpAgent, httpsAgent }),
  });
  await relay.listen();
  return {
    // `<-loopback>`: loopback targets go through the proxy too (they are the proxy's own, not ours).
    context: { proxyServer: `http://127.0.0.1:${relay.port}`, proxyBypassList: ['<-loopback>'] },
    close: async () => {
      await relay.close(true);
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
