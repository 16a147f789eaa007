/** One request of a steady load: when it started and ended (ms since the epoch), and whether it succeeded. */
export interface TimedRequest {
  start: number;
  end: number;
  ok: boolean;
}

/**
 * How long requests were disturbed after an incident at `at`: from that instant to the end of the last
 * request within `windowMs` after it that failed or took longer than `slowMs`; 0 when none did.
 */
export function disturbedMs(requests: readonly TimedRequest[], at: number, opts: { slowMs: number; windowMs: number }): number {
  let last = at;
  for (const r of requests) {
    if (r.end < at || r.start > at + opts.windowMs) continue;
    if (!r.ok || r.end - r.start > opts.slowMs) last = Math.max(last, r.end);
  }
  return last - at;
}

/** Records each call of `fn` as a TimedRequest (ok when it resolves to true), and returns what fn returned. */
export function requestTimeline() {
  const requests: TimedRequest[] = [];
  return {
    requests,
    async time<T>(fn: () => Promise<T>, ok: (value: T) => boolean): Promise<T | undefined> {
      const start = Date.now();
      try {
        const value = await fn();
        requests.push({ start, end: Date.now(), ok: ok(value) });
        return value;
      } catch {
        requests.push({ start, end: Date.now(), ok: false });
        return undefined;
      }
    },
  };
}
