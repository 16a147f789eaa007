import type { Frequency } from '../domain/task/task.js';
import { localTime } from './time-zone.js';

/** every_month runs on this day at the latest, so that it runs in every month. */
export const LAST_MONTHLY_DAY = 28;

/**
 * The crontab of a fixed frequency, derived from the task's creation time in its time zone (decisions:
 * `* * * * *`, `M * * * *`, `M H * * *`, `M H D * *` with D ≤ 28). `custom` has no derived crontab.
 */
export function deriveCrontab(frequency: Exclude<Frequency, 'custom'>, createdAt: number, timeZone: string): string {
  const t = localTime(createdAt, timeZone);
  switch (frequency) {
    case 'every_minute':
      return '* * * * *';
    case 'every_hour':
      return `${t.minute} * * * *`;
    case 'every_day':
      return `${t.minute} ${t.hour} * * *`;
    case 'every_month':
      return `${t.minute} ${t.hour} ${Math.min(t.day, LAST_MONTHLY_DAY)} * *`;
    default: {
      const unknown: never = frequency;
      return unknown;
    }
  }
}
