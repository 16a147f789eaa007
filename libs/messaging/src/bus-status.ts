import type { NatsConnection } from '@nats-io/transport-node';

export interface BusStatus {
  /** False from the moment the connection to NATS drops until it is back (or for good once closed). */
  connected(): boolean;
  /** Throws unless NATS is connected and answers a round trip: a readiness check. */
  check(): Promise<void>;
  /**
   * Calls `listener` each time the connection is back after a drop (core messages published meanwhile
   * never reached this client's subscriptions); returns the function that stops calling it.
   */
  onReconnect(listener: () => void): () => void;
}

const BUS_STATUS = Symbol.for('app.messaging.busStatus');
type Tracked = NatsConnection & { [BUS_STATUS]?: BusStatus };

/**
 * Follows a connection's status events, so a request path can refuse at once while the bus is down
 * (503 service_unavailable) instead of waiting for a publish to time out. One tracker per connection.
 */
export function busStatus(nc: NatsConnection): BusStatus {
  const tracked = nc as Tracked;
  if (tracked[BUS_STATUS]) return tracked[BUS_STATUS];
  let up = !nc.isClosed();
  const listeners = new Set<() => void>();
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnecting' || s.type === 'close') up = false;
      else if (s.type === 'reconnect') {
        up = true;
        for (const listener of listeners) listener();
      }
    }
  })().catch(() => undefined);
  const status: BusStatus = {
    connected: () => up && !nc.isClosed(),
    async check() {
      if (!status.connected()) throw new Error('NATS is not connected');
      await nc.rtt();
    },
    onReconnect(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  tracked[BUS_STATUS] = status;
  return status;
}
