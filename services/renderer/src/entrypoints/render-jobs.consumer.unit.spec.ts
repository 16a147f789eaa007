import { describe, expect, it } from 'vitest';
import { JOBS_HELD_WAITING, jobsHeldWaiting } from './render-jobs.consumer.js';

describe('How many render jobs a renderer holds waiting beyond its slots', () => {
  describe('When it is the fleet (or has not heard of any other renderer yet)', () => {
    it('should hold enough to start them fairly, by account', () => {
      expect(jobsHeldWaiting(4, 4)).toBe(JOBS_HELD_WAITING);
      expect(jobsHeldWaiting(4, undefined)).toBe(JOBS_HELD_WAITING);
    });
  });

  describe('When another renderer has slots too', () => {
    it('should hold none, so no job waits behind its busy slots while a peer has a free one', () => {
      expect(jobsHeldWaiting(4, 8)).toBe(0);
      expect(jobsHeldWaiting(4, 5)).toBe(0);
    });
  });
});
