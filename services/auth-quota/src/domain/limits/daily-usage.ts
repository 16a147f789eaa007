/** One day of a month's usage: YYYY-MM-DD (UTC) and the renders committed on it. */
export interface DayUsage {
  day: string;
  used: number;
}

/** Every day of the month of `nowMs` (UTC) from the 1st to today, in order, with its count (0 when absent). */
export function daysOfMonthSoFar(nowMs: number, counts: ReadonlyMap<string, number>): DayUsage[] {
  const now = new Date(nowMs);
  const days: DayUsage[] = [];
  for (let d = 1; d <= now.getUTCDate(); d++) {
    const day = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), d)).toISOString().slice(0, 10);
    days.push({ day, used: counts.get(day) ?? 0 });
  }
  return days;
}
