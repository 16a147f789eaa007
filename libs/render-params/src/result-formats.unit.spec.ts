import { describe, expect, it } from 'vitest';
import { CONTENT_TYPE_BY_FORMAT, OPERATIONS, RESULT_FORMATS } from './index.js';

describe('Result formats', () => {
  describe('When each operation lists its output formats', () => {
    it('should list exactly the formats validation accepts for it, by their one name, the default first', () => {
      expect(RESULT_FORMATS).toEqual({
        screenshot: ['jpeg', 'png', 'webp', 'gif'],
        pdf: ['pdf'],
        scrape: ['html', 'md'],
        screencast: ['mp4', 'webm', 'mov', 'avi'],
      });
      for (const op of OPERATIONS) for (const format of RESULT_FORMATS[op]) expect(CONTENT_TYPE_BY_FORMAT[format], format).toMatch(/^[a-z]+\/[a-z0-9.-]+$/);
    });
  });
});
