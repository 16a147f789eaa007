import { connect, type NatsConnection } from '@nats-io/transport-node';

export type { NatsConnection, Subscription } from '@nats-io/transport-node';

/**
 * Connects to NATS (`servers`: one URL, or every server of a cluster comma-separated; the client reconnects
 * to whichever of them answers, and learns the cluster's other members from the one it reached), retrying the first connection for up to `waitMs` (services start in any order),
 * and reconnecting for ever afterwards. The client captures no stack trace for each request and JetStream
 * publish unless `asyncTraces` is set (to find where a failing request was made): every service is a busy
 * requester (a render costs the edge and the renderer a dozen requests), and an Error built per request was
 * 2% of the edge's CPU under renders. A failed request then reports the error NATS gave (a timeout, no
 * responders) without the caller's stack; bus-errors.ts and the start gate read both shapes.
 */
export async function connectNats(opts: { servers: string; name: string; waitMs?: number; asyncTraces?: boolean }): Promise<NatsConnection> {
  const deadline = Date.now() + (opts.waitMs ?? 15_000);
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      return await connect({
        servers: opts.servers.split(',').map((s) => s.trim()).filter(Boolean),
        name: opts.name,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        noAsyncTraces: opts.asyncTraces !== true,
      });
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`Cannot connect to NATS at ${opts.servers}: ${(lastError as Error)?.message ?? 'timed out'}`);
}
