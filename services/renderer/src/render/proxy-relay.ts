import { anonymizeProxy, closeAnonymizedProxy } from 'proxy-chain';
import type { Route } from './route.js';

export interface OpenRoute {
  /** Browser context settings of the render (absent: the pool's own egress). */
  context: Route['context'];
  close(): Promise<void>;
}

/**
 * A proxy that wants credentials is reached through a relay on 127.0.0.1 (proxy-chain) that adds them
 * to every request and tunnel, so the browser never holds them: no challenge from a site the page
 * loads can ever be answered with the proxy's credentials. The relay lives for one render.
 */
export async function openRoute(route: Route): Promise<OpenRoute> {
  if (!route.context || !route.credentials) return { context: route.context, close: async () => undefined };
  const upstream = new URL(route.context.proxyServer);
  upstream.username = encodeURIComponent(route.credentials.username);
  upstream.password = encodeURIComponent(route.credentials.password);
  const relay = await anonymizeProxy({ url: upstream.href });
  return {
    context: { ...route.context, proxyServer: relay },
    close: async () => {
      await closeAnonymizedProxy(relay, true);
    },
  };
}
