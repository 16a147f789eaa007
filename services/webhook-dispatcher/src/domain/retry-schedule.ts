/** The decided default: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h (decisions: Async and webhooks). */
export const DEFAULT_RETRY_SCHEDULE = '5s,30s,2m,10m,30m,1h,3h,6h';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * Parses a comma-separated list of delays (`500ms`, `5s`, `2m`, `1h`; a bare number is milliseconds):
 * the waits before the 2nd, 3rd, … attempt. Throws on anything else.
 */
export function parseRetrySchedule(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length === 0) throw new Error('the retry schedule needs at least one delay');
  return parts.map((part) => {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(part);
    if (!m) throw new Error(`"${part}" is not a delay (use e.g. 500ms, 5s, 2m, 1h)`);
    return Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 'ms']!);
  });
}

/** A delay spread by ±`jitter` (a fraction), so receivers that failed together are not retried together. */
export function withJitter(delayMs: number, jitter: number, random: () => number = Math.random): number {
  return Math.max(0, Math.round(delayMs * (1 - jitter + 2 * jitter * random())));
}
