import { connect, type NatsConnection } from '@nats-io/transport-node';

export type { NatsConnection } from '@nats-io/transport-node';

/**
 * Connects to NATS (`servers`: one URL, or every server of a cluster comma-separated; the client reconnects
 * to whichever of them answers, and learns the cluster's other members from the one it reached), retrying the first connection for up to `waitMs` (services start in any order),
 * and reconnecting for ever afterwards. `asyncTraces: false` stops the client from capturing a stack trace
 * for every request and JetStream publish (a failed one then reports less context): worth it for a
 * publisher of thousands of messages a second.
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
        noAsyncTraces: opts.asyncTraces === false,
      });
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`Cannot connect to NATS at ${opts.servers}: ${(lastError as Error)?.message ?? 'timed out'}`);
}
