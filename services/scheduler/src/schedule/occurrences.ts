import { CronExpressionParser, type CronExpression } from 'cron-parser';

/**
 * Occurrences of a task's crontab as UTC instants (Unix ms), computed in the task's IANA time zone by
 * cron-parser. Behaviour across DST changes (documented in docs and pinned by the DST tests):
 * - a local time that does not exist (spring forward) runs once, shifted forward by the length of the gap
 *   (02:30 on a day that jumps from 02:00 to 03:00 runs at 03:30; a midnight gap runs at 01:00);
 * - a local time that occurs twice (fall back) runs once, at its first occurrence, when the hour field is
 *   fixed; expressions whose hour field is `*` follow the clock, so `*\/15 * * * *` runs 100 times on a
 *   25-hour day and 92 times on a 23-hour day.
 */
function expression(crontab: string, timeZone: string, after: number, until?: number): CronExpression {
  return CronExpressionParser.parse(crontab, {
    currentDate: new Date(after),
    tz: timeZone,
    ...(until !== undefined ? { endDate: new Date(until) } : {}),
  });
}

/** The first occurrence strictly after `after`, or undefined when there is none. */
export function nextOccurrence(crontab: string, timeZone: string, after: number): number | undefined {
  try {
    return expression(crontab, timeZone, after).next().getTime();
  } catch {
    return undefined;
  }
}

/** Occurrences in (after, until], in order, at most `max`. */
export function occurrencesBetween(crontab: string, timeZone: string, after: number, until: number, max = 100_000): number[] {
  const out: number[] = [];
  if (until <= after) return out;
  const it = expression(crontab, timeZone, after, until);
  while (out.length < max && it.hasNext()) {
    const t = it.next().getTime();
    if (t > until) break;
    out.push(t);
  }
  return out;
}

/** The latest occurrence in (after, until], or undefined when there is none. */
export function latestOccurrence(crontab: string, timeZone: string, after: number, until: number): number | undefined {
  const all = occurrencesBetween(crontab, timeZone, after, until);
  return all[all.length - 1];
}

/**
 * The occurrence a scheduler should run now: of the occurrences after `since` (the last claimed one, or
 * when the schedule started) and not after `now`, only the most recent, and only if it is less than
 * `catchUpWindowMs` old (decisions: catch-up after downtime). Older missed occurrences are skipped.
 */
export function dueOccurrence(opts: {
  crontab: string;
  timeZone: string;
  since: number;
  now: number;
  catchUpWindowMs: number;
  /** nextOccurrence, or a remembered one (see occurrence-cache). */
  next?: typeof nextOccurrence;
}): number | undefined {
  const { crontab, timeZone, now } = opts;
  const next = opts.next ?? nextOccurrence;
  const from = Math.max(opts.since, now - opts.catchUpWindowMs);
  // Usually one occurrence has come since `from`: two lookups answer, without listing the window.
  const first = next(crontab, timeZone, from);
  if (first === undefined || first > now) return undefined;
  const following = next(crontab, timeZone, first);
  if (following === undefined || following > now) return first;
  return latestOccurrence(crontab, timeZone, from, now);
}
