import { describe, expect, it } from 'vitest';
import { disturbedMs } from './request-timeline.js';

describe('How long requests were disturbed', () => {
  const opts = { slowMs: 1_000, windowMs: 30_000 };

  describe('When every request after the incident succeeded quickly', () => {
    it('should be 0', () => {
      expect(disturbedMs([{ start: 900, end: 1_100, ok: true }, { start: 1_200, end: 1_400, ok: true }], 1_000, opts)).toBe(0);
    });
  });

  describe('When requests failed or were slow after the incident', () => {
    it('should run until the end of the last such request in the window', () => {
      const requests = [
        { start: 1_100, end: 1_300, ok: false },
        { start: 1_300, end: 3_500, ok: true }, // slow
        { start: 3_500, end: 3_600, ok: true },
        { start: 40_000, end: 40_100, ok: false }, // outside the window
      ];
      expect(disturbedMs(requests, 1_000, opts)).toBe(2_500);
    });
  });

  describe('When a request failed before the incident', () => {
    it('should not count it', () => {
      expect(disturbedMs([{ start: 100, end: 500, ok: false }], 1_000, opts)).toBe(0);
    });
  });
});
