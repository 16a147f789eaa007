import { describe, expect, it } from 'vitest';
import { lifecycleEvents } from './navigate.js';

describe('lifecycleEvents', () => {
  describe('When wait_until is empty', () => {
    it('should wait for domcontentloaded', () => {
      expect(lifecycleEvents([])).toEqual(['domcontentloaded']);
    });
  });

  describe('When wait_until lists conditions', () => {
    it('should keep the known ones once each', () => {
      expect(lifecycleEvents(['load', 'networkidle0', 'load', 'bogus'])).toEqual(['load', 'networkidle0']);
    });
  });
});
