import { Metadata, type CallOptions, type Client, type ServiceError } from '@grpc/grpc-js';
import { fromServiceError } from './errors.js';

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => unknown;

/** Calls a unary method of a ts-proto grpc-js client as a promise, with a deadline; errors come back as AppErrors. */
export function callUnary<C extends Client, Req, Res>(
  client: C,
  method: UnaryMethod<Req, Res>,
  request: Req,
  opts: { timeoutMs?: number } = {},
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    method.call(
      client,
      request,
      new Metadata(),
      { deadline: new Date(Date.now() + (opts.timeoutMs ?? 5_000)) },
      (error, response) => (error ? reject(fromServiceError(error)) : resolve(response)),
    );
  });
}

/**
 * Channel options of every client of an internal service: after a peer restarts, reconnect within about a
 * second rather than after gRPC's default backoff (up to two minutes), so a restarted service serves again
 * at once; calls made while it is down fail fast as UNAVAILABLE (503 service_unavailable).
 */
export const CLIENT_CHANNEL_OPTIONS = {
  'grpc.initial_reconnect_backoff_ms': 250,
  'grpc.min_reconnect_backoff_ms': 250,
  'grpc.max_reconnect_backoff_ms': 1_000,
} as const;

/** A readiness check of a gRPC peer: resolves once the client's channel is connected (it connects if idle). */
export function peerReady(client: Client, timeoutMs = 900): Promise<void> {
  return new Promise<void>((resolve, reject) =>
    client.waitForReady(Date.now() + timeoutMs, (err) => (err ? reject(new Error('not reachable')) : resolve())),
  );
}
