import { describe, expect, it } from 'vitest';
import { deriveCrontab } from './frequency.js';
import { dueOccurrence, nextOccurrence, occurrencesBetween } from './occurrences.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();
const HOUR = 3_600_000;

/** Every occurrence of one local calendar day, given the UTC instants of its two midnights. */
const onLocalDay = (crontab: string, zone: string, startIso: string, endIso: string) =>
  occurrencesBetween(crontab, zone, at(startIso) - 1, at(endIso) - 1).map(iso);

// DST vectors of the reliability reference (section 6.2), with the instants worked out by hand from the
// zone rules: spring forward skips a local hour (a time inside it runs once, shifted forward by the gap),
// fall back repeats one (a fixed time runs once, at its first occurrence; `*` hours follow the clock).
const TRANSITION_DAYS = [
  {
    zone: 'America/New_York',
    kind: 'spring forward (02:00 EST → 03:00 EDT)',
    day: ['2026-03-08T05:00:00Z', '2026-03-09T04:00:00Z'],
    hours: 23,
    at0230: '2026-03-08T07:30:00.000Z', // 03:30 EDT
  },
  {
    zone: 'America/New_York',
    kind: 'fall back (02:00 EDT → 01:00 EST)',
    day: ['2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z'],
    hours: 25,
    at0230: '2026-11-01T07:30:00.000Z', // 02:30 EST, after the repeated hour
  },
  {
    zone: 'Europe/Berlin',
    kind: 'spring forward (02:00 CET → 03:00 CEST)',
    day: ['2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z'],
    hours: 23,
    at0230: '2026-03-29T01:30:00.000Z', // 03:30 CEST
  },
  {
    zone: 'Europe/Berlin',
    kind: 'fall back (03:00 CEST → 02:00 CET)',
    day: ['2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z'],
    hours: 25,
    at0230: '2026-10-25T00:30:00.000Z', // the first 02:30 (CEST)
  },
  {
    zone: 'Australia/Sydney',
    kind: 'fall back (03:00 AEDT → 02:00 AEST)',
    day: ['2026-04-04T13:00:00Z', '2026-04-05T14:00:00Z'],
    hours: 25,
    at0230: '2026-04-04T15:30:00.000Z', // the first 02:30 (AEDT)
  },
  {
    zone: 'Australia/Sydney',
    kind: 'spring forward (02:00 AEST → 03:00 AEDT)',
    day: ['2026-10-03T14:00:00Z', '2026-10-04T13:00:00Z'],
    hours: 23,
    at0230: '2026-10-03T16:30:00.000Z', // 03:30 AEDT
  },
] as const;

describe('Task occurrences', () => {
  describe.each(TRANSITION_DAYS)('When the day is a $kind in $zone', ({ zone, day, hours, at0230 }) => {
    it('should run 30 2 * * * exactly once, at the documented instant', () => {
      expect(onLocalDay('30 2 * * *', zone, day[0], day[1])).toEqual([at0230]);
    });

    it(`should run */15 * * * * ${hours * 4} times, each instant once and in order`, () => {
      const runs = onLocalDay('*/15 * * * *', zone, day[0], day[1]).map(at);
      expect(runs).toHaveLength(hours * 4);
      expect(new Set(runs).size).toBe(runs.length);
      for (let i = 1; i < runs.length; i++) expect(runs[i]! - runs[i - 1]!).toBe(15 * 60_000);
      expect(runs[0]).toBe(at(day[0]));
    });

    it(`should run every_hour (M * * * *) ${hours} times and every_minute ${hours * 60} times`, () => {
      expect(onLocalDay('7 * * * *', zone, day[0], day[1])).toHaveLength(hours);
      expect(onLocalDay('* * * * *', zone, day[0], day[1])).toHaveLength(hours * 60);
    });
  });

  describe('When a local time occurs twice (New York, 2026-11-01)', () => {
    it('should run a fixed 01:30 once, at its first occurrence (EDT)', () => {
      expect(onLocalDay('30 1 * * *', 'America/New_York', '2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z')).toEqual([
        '2026-11-01T05:30:00.000Z',
      ]);
    });

    it('should run an hourly schedule in both passes of the repeated hour', () => {
      expect(occurrencesBetween('5 * * * *', 'America/New_York', at('2026-11-01T04:30:00Z'), at('2026-11-01T08:00:00Z')).map(iso)).toEqual([
        '2026-11-01T05:05:00.000Z', // 01:05 EDT
        '2026-11-01T06:05:00.000Z', // 01:05 EST
        '2026-11-01T07:05:00.000Z', // 02:05 EST
      ]);
    });
  });

  describe('When local midnight does not exist (Sao Paulo, 2018-11-04)', () => {
    it('should run 0 0 * * * once that day, at 01:00 local', () => {
      expect(occurrencesBetween('0 0 * * *', 'America/Sao_Paulo', at('2018-11-03T12:00:00Z'), at('2018-11-04T12:00:00Z')).map(iso)).toEqual([
        '2018-11-04T03:00:00.000Z',
      ]);
    });
  });

  describe('When every_day and every_month were derived in Berlin and run across the spring change', () => {
    it('should keep the local wall-clock time, whatever the offset', () => {
      const created = at('2026-01-31T09:15:00Z'); // 10:15 CET on the 31st
      const daily = deriveCrontab('every_day', created, 'Europe/Berlin');
      const monthly = deriveCrontab('every_month', created, 'Europe/Berlin');
      expect(daily).toBe('15 10 * * *');
      expect(monthly).toBe('15 10 28 * *');
      expect(occurrencesBetween(daily, 'Europe/Berlin', at('2026-03-28T00:00:00Z'), at('2026-03-30T23:00:00Z')).map(iso)).toEqual([
        '2026-03-28T09:15:00.000Z', // CET, +1
        '2026-03-29T08:15:00.000Z', // CEST, +2
        '2026-03-30T08:15:00.000Z',
      ]);
      expect(occurrencesBetween(monthly, 'Europe/Berlin', created, at('2026-05-01T00:00:00Z')).map(iso)).toEqual([
        '2026-02-28T09:15:00.000Z',
        '2026-03-28T09:15:00.000Z',
        '2026-04-28T08:15:00.000Z',
      ]);
    });
  });

  describe('When a custom crontab is read in several zones', () => {
    it.each([
      ['Etc/UTC', '2026-06-01T09:00:00.000Z'],
      ['Asia/Kolkata', '2026-06-01T03:30:00.000Z'],
      ['America/Los_Angeles', '2026-06-01T16:00:00.000Z'],
      ['Australia/Lord_Howe', '2026-05-31T22:30:00.000Z'],
    ])('should run 0 9 * * 1 (Mondays at 09:00) in %s at %s', (zone, expected) => {
      expect(iso(nextOccurrence('0 9 * * 1', zone, at('2026-05-30T00:00:00Z'))!)).toBe(expected);
    });
  });

  describe('When occurrences are drawn over two years for random expressions and zones', () => {
    it('should always move strictly forward, without repeats (a loop would exceed the test time limit)', () => {
      const zones = ['America/New_York', 'Europe/Berlin', 'Australia/Sydney', 'America/Sao_Paulo', 'Australia/Lord_Howe', 'Asia/Kolkata'];
      const exprs = ['*/7 * * * *', '0 */5 * * *', '30 2 * * *', '15 1-3 * * 0', '0 0 1,15 * *', '45 23 28 2,3 *', '0 12 * * 1-5'];
      let seed = 42;
      const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
      for (let i = 0; i < 20; i++) {
        const expr = exprs[Math.floor(random() * exprs.length)]!;
        const zone = zones[Math.floor(random() * zones.length)]!;
        let t = at('2026-01-01T00:00:00Z') + Math.floor(random() * 730 * 24 * HOUR);
        const seen = new Set<number>();
        for (let k = 0; k < 30; k++) {
          const next = nextOccurrence(expr, zone, t)!;
          expect(next, `${expr} in ${zone} after ${iso(t)}`).toBeGreaterThan(t);
          expect(seen.has(next)).toBe(false);
          seen.add(next);
          t = next;
        }
      }
    });
  });
});

describe('Catch-up', () => {
  const hourly = { crontab: '0 * * * *', timeZone: 'Etc/UTC' };

  describe('When several occurrences were missed and the latest is less than an hour old', () => {
    it('should run only the most recent one', () => {
      const due = dueOccurrence({ ...hourly, since: at('2026-05-01T06:00:00Z'), now: at('2026-05-01T09:20:00Z'), catchUpWindowMs: HOUR });
      expect(iso(due!)).toBe('2026-05-01T09:00:00.000Z');
    });
  });

  describe('When the latest missed occurrence is an hour old or more', () => {
    it('should run none (and one just under an hour old still runs)', () => {
      const daily = { crontab: '0 0 * * *', timeZone: 'Etc/UTC', since: at('2026-05-01T00:00:00Z'), catchUpWindowMs: HOUR };
      expect(dueOccurrence({ ...daily, now: at('2026-05-02T01:00:00Z') - 1 })).toBe(at('2026-05-02T00:00:00Z'));
      expect(dueOccurrence({ ...daily, now: at('2026-05-02T01:00:00Z') })).toBeUndefined();
      expect(dueOccurrence({ ...daily, now: at('2026-05-04T12:00:00Z') })).toBeUndefined();
    });
  });

  describe('When the occurrence was already claimed', () => {
    it('should not offer it again', () => {
      expect(dueOccurrence({ ...hourly, since: at('2026-05-01T09:00:00Z'), now: at('2026-05-01T09:30:00Z'), catchUpWindowMs: HOUR })).toBeUndefined();
    });
  });
});
