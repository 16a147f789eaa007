import { isIP } from 'node:net';
import { credentials, type ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';

/**
 * The gRPC target of a service's replica addresses, `host:port[,host:port...]`, as every client of every
 * service takes them: one host name is resolved through DNS to every address it has (a scaled-out service
 * behind one name); several addresses must be IP literals of one family, given to gRPC's static resolver
 * (`ipv4:` / `ipv6:`). Either way the channel spreads its calls over all of them (round robin).
 */
export function grpcTarget(addresses: string): string {
  const list = addresses
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  if (list.length === 0) throw new Error('No gRPC address given');
  const hostOf = (a: string) => a.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  if (list.length === 1 && isIP(hostOf(list[0]!)) === 0) return `dns:${list[0]}`;
  if (list.every((a) => isIP(hostOf(a)) === 4)) return `ipv4:${list.join(',')}`;
  if (list.every((a) => isIP(hostOf(a)) === 6)) return `ipv6:${list.join(',')}`;
  throw new Error(`gRPC addresses must be one host name or a list of IP addresses of one family: ${addresses}`);
}

export interface ClientChannelOptions {
  /**
   * Services (`package.Service`) whose calls gRPC itself retries on another replica when one is gone
   * (UNAVAILABLE before any answer): only for services every call of which may be repeated.
   */
  retryServices?: string[];
}

/**
 * Channel options of every client of an internal service: round robin over every replica (`spread`); after a peer
 * restarts, reconnect within about a second rather than after gRPC's default backoff (up to two minutes),
 * so a restarted replica serves again at once; calls made while none is up fail fast as UNAVAILABLE
 * (503 service_unavailable).
 */
export function clientChannelOptions(opts: ClientChannelOptions & { spread?: boolean } = {}): ChannelOptions {
  const serviceConfig = {
    // One address keeps gRPC's default (pick_first): a call made while its connection is down starts a new
    // connection attempt at once, rather than failing until the next one round robin has scheduled.
    ...(opts.spread === false ? {} : { loadBalancingConfig: [{ round_robin: {} }] }),
    methodConfig: (opts.retryServices ?? []).map((service) => ({
      name: [{ service }],
      retryPolicy: {
        maxAttempts: 5,
        initialBackoff: '0.05s',
        maxBackoff: '0.5s',
        backoffMultiplier: 2,
        retryableStatusCodes: ['UNAVAILABLE'],
      },
    })),
  };
  return {
    'grpc.service_config': JSON.stringify(serviceConfig),
    'grpc.initial_reconnect_backoff_ms': 250,
    'grpc.min_reconnect_backoff_ms': 250,
    'grpc.max_reconnect_backoff_ms': 1_000,
  };
}

type ClientConstructor<C> = new (address: string, creds: ChannelCredentials, options?: ChannelOptions) => C;

/**
 * A generated (ts-proto) client of the service at `addresses` (one address, a comma-separated list of
 * replicas, or one host name resolving to all of them): the one way every service builds its gRPC clients.
 */
export function grpcClient<C>(Client: ClientConstructor<C>, addresses: string, opts: ClientChannelOptions = {}): C {
  const target = grpcTarget(addresses);
  // A host name may resolve to several replicas; a list of addresses is several.
  const spread = target.startsWith('dns:') || target.includes(',');
  return new Client(target, credentials.createInsecure(), clientChannelOptions({ ...opts, spread }));
}
