import { isIP } from 'node:net';
import { credentials, type ChannelOptions } from '@grpc/grpc-js';
import { AuthQuotaServiceClient } from '@app/proto/authquota';

/**
 * Calls to auth-quota spread over every replica (round robin over the addresses) and, when a replica is
 * gone (UNAVAILABLE: refused or dropped connection), retried on another one within the call's deadline.
 * Every call may be retried: admissions and reservations carry an id of the caller's choosing, so a
 * retry is recognised and counted once.
 */
const SERVICE_CONFIG = {
  loadBalancingConfig: [{ round_robin: {} }],
  methodConfig: [
    {
      name: [{ service: 'authquota.v1.AuthQuotaService' }],
      retryPolicy: {
        maxAttempts: 5,
        initialBackoff: '0.05s',
        maxBackoff: '0.5s',
        backoffMultiplier: 2,
        retryableStatusCodes: ['UNAVAILABLE'],
      },
    },
  ],
};

const CHANNEL_OPTIONS: ChannelOptions = {
  'grpc.service_config': JSON.stringify(SERVICE_CONFIG),
  // A restarted replica is found again within a couple of seconds (the default backoff grows to 2 minutes).
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 2_000,
};

/**
 * The gRPC target of a list of replica addresses: `host:port[,host:port...]`. Several addresses must be IP
 * literals; a single host name is resolved through DNS to every address it has (a scaled-out service).
 */
export function authQuotaTarget(addresses: string): string {
  const list = addresses
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  if (list.length === 0) throw new Error('No auth-quota address given');
  const hostOf = (a: string) => a.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  if (list.length === 1 && isIP(hostOf(list[0]!)) === 0) return `dns:${list[0]}`;
  if (list.every((a) => isIP(hostOf(a)) === 4)) return `ipv4:${list.join(',')}`;
  if (list.every((a) => isIP(hostOf(a)) === 6)) return `ipv6:${list.join(',')}`;
  throw new Error(`auth-quota addresses must be one host name or a list of IP addresses of one family: ${addresses}`);
}

/** An AuthQuotaService client over every replica at `addresses` (comma-separated). */
export function replicatedAuthQuotaClient(addresses: string): AuthQuotaServiceClient {
  return new AuthQuotaServiceClient(authQuotaTarget(addresses), credentials.createInsecure(), CHANNEL_OPTIONS);
}
