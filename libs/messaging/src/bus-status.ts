import type { NatsConnection } from '@nats-io/transport-node';

export interface BusStatus {
  /**
   * False from the moment the connection to NATS drops until it is back (or for good once closed); with a
   * probe, also while the server does not answer its pings (a hung server keeps the connection open).
   */
  connected(): boolean;
  /** Throws unless NATS is connected and answers a round trip: a readiness check. */
  check(): Promise<void>;
  /**
   * Calls `listener` each time the connection is back after a drop (core messages published meanwhile
   * never reached this client's subscriptions); returns the function that stops calling it.
   */
  onReconnect(listener: () => void): () => void;
  /**
   * Calls `listener` each time the bus is judged down (the connection dropped, or, with a probe, the
   * server stopped answering): waits that need the bus can be abandoned at once. Returns the function
   * that stops calling it.
   */
  onDown(listener: () => void): () => void;
}

export interface BusProbe {
  /** How often the server is pinged. */
  intervalMs: number;
  /** A ping unanswered this long marks the bus down until one is answered. */
  timeoutMs: number;
}

/** The edge's probe: a hung NATS is noticed within about a second and a half. */
export const DEFAULT_BUS_PROBE: BusProbe = { intervalMs: 250, timeoutMs: 1_000 };

const BUS_STATUS = Symbol.for('app.messaging.busStatus');
type Tracker = BusStatus & { probe(opts: BusProbe): void };
type Tracked = NatsConnection & { [BUS_STATUS]?: Tracker };

/**
 * Follows a connection's status events, so a request path can refuse at once while the bus is down
 * (503 service_unavailable) instead of waiting for a publish to time out. One tracker per connection;
 * `probe` (once per connection, whoever asks first) also pings the server, so a server that stopped
 * answering without closing the connection counts as down too.
 */
export function busStatus(nc: NatsConnection, opts: { probe?: BusProbe } = {}): BusStatus {
  const tracked = nc as Tracked;
  const tracker = (tracked[BUS_STATUS] ??= track(nc));
  if (opts.probe) tracker.probe(opts.probe);
  return tracker;
}

function track(nc: NatsConnection): Tracker {
  let up = !nc.isClosed();
  let answering = true;
  let probing = false;
  const listeners = new Set<() => void>();
  const downListeners = new Set<() => void>();
  let wasConnected = true;
  /** Tells the down listeners once per fall from connected. */
  const changed = () => {
    const now = up && answering && !nc.isClosed();
    if (wasConnected && !now) for (const listener of [...downListeners]) listener();
    wasConnected = now;
  };
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnecting' || s.type === 'close') {
        up = false;
        changed();
      } else if (s.type === 'reconnect') {
        up = answering = true;
        changed();
        for (const listener of listeners) listener();
      }
    }
  })().catch(() => undefined);
  const status: Tracker = {
    connected: () => up && answering && !nc.isClosed(),
    async check() {
      if (!status.connected()) throw new Error('NATS is not connected');
      await nc.rtt();
    },
    probe({ intervalMs, timeoutMs }) {
      if (probing) return;
      probing = true;
      let pending = false;
      const timer = setInterval(() => {
        if (pending || !up || nc.isClosed()) return;
        pending = true;
        let answered = false;
        nc.flush().then(
          () => {
            answered = true;
            answering = true;
            changed();
          },
          () => {
            answered = true;
          },
        ).finally(() => (pending = false));
        // Checked after the poll phase of the turn the timer fires in, so a pong that arrived while this
        // process was busy is read first: a slow event loop does not pass for a silent server.
        setTimeout(
          () =>
            setImmediate(() => {
              if (answered) return;
              answering = false;
              changed();
            }),
          timeoutMs,
        ).unref();
      }, intervalMs);
      timer.unref();
      void nc.closed().then(() => clearInterval(timer));
    },
    onReconnect(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onDown(listener) {
      downListeners.add(listener);
      return () => downListeners.delete(listener);
    },
  };
  return status;
}
