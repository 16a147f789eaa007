/** A receiver at its cap gets its message back no sooner than this. */
const MIN_BUSY_DELAY_MS = 50;
/** Weight of the newest attempt in a receiver's moving average of attempt time. */
const NEWEST_WEIGHT = 0.2;

/**
 * Caps the attempts in flight per receiver (scheme, host and port) in this replica, so one slow
 * receiver cannot take every worker. A full receiver's message goes back to JetStream for about two of
 * that receiver's recent attempt times (a moving average; at least 50 ms, at most the caller's bound): a
 * receiver that answers in milliseconds gets its next webhooks as soon as a slot frees, a slow one is not
 * asked for again and again. `release` takes how long the attempt held its slot.
 */
export function receiverLimiter(perReceiver: number) {
  const inFlight = new Map<string, number>();
  const attemptMs = new Map<string, number>();
  return {
    tryAcquire(receiver: string): boolean {
      const n = inFlight.get(receiver) ?? 0;
      if (n >= perReceiver) return false;
      inFlight.set(receiver, n + 1);
      return true;
    },
    release(receiver: string, heldMs?: number): void {
      const n = (inFlight.get(receiver) ?? 1) - 1;
      if (n <= 0) inFlight.delete(receiver);
      else inFlight.set(receiver, n);
      if (heldMs === undefined) return;
      const average = attemptMs.get(receiver);
      attemptMs.set(receiver, average === undefined ? heldMs : average + NEWEST_WEIGHT * (heldMs - average));
    },
    /** How long a message for `receiver`, at its cap, should wait before it comes back (`atMostMs` without history). */
    busyDelayMs(receiver: string, atMostMs: number): number {
      const average = attemptMs.get(receiver);
      return average === undefined ? atMostMs : Math.min(atMostMs, Math.max(MIN_BUSY_DELAY_MS, Math.ceil(2 * average)));
    },
    inFlight: (receiver: string) => inFlight.get(receiver) ?? 0,
  };
}

export type ReceiverLimiter = ReturnType<typeof receiverLimiter>;

export function receiverOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return url;
  }
}
