import { boundedMemo } from '../bounded-memo.js';
import { nextOccurrence } from './occurrences.js';

/**
 * `nextOccurrence`, remembered: many tasks share a crontab, a time zone and the instant they count from
 * (every task claimed at a minute counts from that minute), and cron-parser costs far more than a lookup.
 */
export const cachedNextOccurrence = (max = 10_000) =>
  boundedMemo(nextOccurrence, (crontab, timeZone, after) => `${after} ${timeZone} ${crontab}`, max);
