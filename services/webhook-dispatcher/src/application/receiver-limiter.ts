/**
 * Caps the attempts in flight per receiver (scheme, host and port) in this replica, so one slow
 * receiver cannot take every worker. A full receiver's message goes back to JetStream briefly.
 */
export function receiverLimiter(perReceiver: number) {
  const inFlight = new Map<string, number>();
  return {
    tryAcquire(receiver: string): boolean {
      const n = inFlight.get(receiver) ?? 0;
      if (n >= perReceiver) return false;
      inFlight.set(receiver, n + 1);
      return true;
    },
    release(receiver: string): void {
      const n = (inFlight.get(receiver) ?? 1) - 1;
      if (n <= 0) inFlight.delete(receiver);
      else inFlight.set(receiver, n);
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
