import { describe, expect, it } from 'vitest';
import * as topology from './topology.js';
import { BUCKETS, CONSUMERS, SUBJECTS, renderOriginOf } from './topology.js';

describe('Render event subjects', () => {
  describe('When an event is named by its origin and kind', () => {
    it('should be read back from its subject, and fall under its origin filter only', () => {
      const subject = SUBJECTS.renderEvent('async', 'cache-hit', 'job-1');
      expect(SUBJECTS.renderEventOriginOf(subject)).toBe('async');
      expect(SUBJECTS.renderEventKindOf(subject)).toBe('cache-hit');
      expect(subject.startsWith(SUBJECTS.renderEventsOf('async').replace('>', ''))).toBe(true);
      expect(subject.startsWith(SUBJECTS.renderEventsOf('sync').replace('>', ''))).toBe(false);
      expect(subject.startsWith(SUBJECTS.renderEventsAll.replace('>', ''))).toBe(true);
    });
  });

  describe('When a job says where it comes from', () => {
    it.each([
      [{ origin: 'task', async: false }, 'task'],
      [{ origin: 'api', async: true }, 'async'],
      [{ origin: 'api', async: false }, 'sync'],
      [{ origin: 'api' }, 'sync'],
    ])('should name %j events %s', (job, origin) => {
      expect(renderOriginOf(job)).toBe(origin);
    });
  });
});

describe('The topology as data', () => {
  describe('When its declarations are read', () => {
    it('should list every declared consumer once in CONSUMERS, each durable name once, and give every bucket its kind', () => {
      const declared = Object.entries(topology).filter(([name]) => name.endsWith('_CONSUMER')).map(([, c]) => c);
      expect(declared.length).toBeGreaterThan(5);
      expect(new Set(CONSUMERS)).toEqual(new Set(declared));
      expect(CONSUMERS).toHaveLength(declared.length);
      const durables = CONSUMERS.map((c) => c.config.durable_name);
      expect(new Set(durables).size).toBe(durables.length);
      for (const bucket of Object.values(BUCKETS)) expect(['kv', 'objects']).toContain(bucket.kind);
    });
  });
});
