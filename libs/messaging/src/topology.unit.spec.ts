import { describe, expect, it } from 'vitest';
import { SUBJECTS, renderOriginOf } from './topology.js';

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
