import { Metadata, connectivityState, type CallOptions, type Client, type ServiceError } from '@grpc/grpc-js';
import { setTimeout as sleep } from 'node:timers/promises';
import { fromServiceError, isTransportFailure } from './errors.js';

type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => unknown;

export interface UnaryCallOptions {
  /** The whole call's budget, every attempt included. */
  timeoutMs?: number;
  /**
   * For calls that may be repeated (they carry an id of the caller's choosing, or only read): when the
   * connection fails under the call (a replica dies after it started answering, or every attempt gRPC's
   * own retry policy allows met a dying connection) while another replica is still connected, try again,
   * on whatever replica the channel picks, until the budget is spent. With no replica connected, the call
   * fails at once (503 service_unavailable), as without failover.
   */
  failover?: boolean;
}

/** Waits between attempts of a call that fails over: 25 ms, doubling, at most 400 ms. */
const FIRST_FAILOVER_WAIT_MS = 25;
const MAX_FAILOVER_WAIT_MS = 400;

/**
 * Calls a unary method of a ts-proto grpc-js client as a promise, within a deadline; errors come back as
 * AppErrors.
 */
export async function callUnary<C extends Client, Req, Res>(
  client: C,
  method: UnaryMethod<Req, Res>,
  request: Req,
  opts: UnaryCallOptions = {},
): Promise<Res> {
  const deadline = new Date(Date.now() + (opts.timeoutMs ?? 5_000));
  const attempt = () =>
    new Promise<Res>((resolve, reject) => {
      method.call(client, request, new Metadata(), { deadline }, (error, response) => (error ? reject(error) : resolve(response)));
    });
  for (let wait = FIRST_FAILOVER_WAIT_MS; ; wait = Math.min(wait * 2, MAX_FAILOVER_WAIT_MS)) {
    try {
      return await attempt();
    } catch (err) {
      const failOver =
        opts.failover &&
        isTransportFailure(err) &&
        Date.now() + wait < deadline.getTime() &&
        client.getChannel().getConnectivityState(false) === connectivityState.READY;
      if (!failOver) throw fromServiceError(err);
      await sleep(wait);
    }
  }
}

/** A readiness check of a gRPC peer: resolves once the client's channel is connected (it connects if idle). */
export function peerReady(client: Client, timeoutMs = 900): Promise<void> {
  return new Promise<void>((resolve, reject) =>
    client.waitForReady(Date.now() + timeoutMs, (err) => (err ? reject(new Error('not reachable')) : resolve())),
  );
}
