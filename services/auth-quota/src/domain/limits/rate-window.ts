/**
 * Fixed one-minute windows aligned to the clock minute: at most `limit` requests are admitted in a
 * window, exactly, whatever the concurrency (decisions happen in one place, in one step).
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window ends. */
  resetUnix: number;
  /** Seconds to wait when refused. */
  retryAfterSeconds: number;
}

export interface RateWindows {
  take(key: string, limit: number, nowMs: number): RateDecision;
  peek(key: string, limit: number, nowMs: number): RateDecision;
}

export function rateWindows(windowMs = 60_000): RateWindows {
  const counters = new Map<string, { windowStart: number; count: number }>();

  const current = (key: string, nowMs: number) => {
    const windowStart = Math.floor(nowMs / windowMs) * windowMs;
    let c = counters.get(key);
    if (!c || c.windowStart !== windowStart) {
      c = { windowStart, count: 0 };
      counters.set(key, c);
    }
    return c;
  };

  const decision = (c: { windowStart: number; count: number }, limit: number, allowed: boolean, nowMs: number): RateDecision => {
    const end = c.windowStart + windowMs;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - c.count),
      resetUnix: Math.ceil(end / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil((end - nowMs) / 1000)),
    };
  };

  return {
    take(key, limit, nowMs) {
      const c = current(key, nowMs);
      if (c.count >= limit) return decision(c, limit, false, nowMs);
      c.count += 1;
      return decision(c, limit, true, nowMs);
    },
    peek(key, limit, nowMs) {
      return decision(current(key, nowMs), limit, true, nowMs);
    },
  };
}
