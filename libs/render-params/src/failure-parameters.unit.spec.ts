import { describe, expect, it } from 'vitest';
import { ValidationError } from '@app/errors';
import { statusMatches } from './failure-parameters.js';
import { validateRenderParams } from './validate.js';

const problemsOf = (input: Record<string, unknown>) => {
  try {
    validateRenderParams('screenshot', { url: 'https://example.com/', ...input });
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).details ?? [];
  }
  throw new Error('expected a ValidationError');
};
const params = (input: Record<string, unknown>) => validateRenderParams('screenshot', { url: 'https://example.com/', ...input }).params;

describe('honest failure parameters', () => {
  describe('When fail_on_status is a number, a list, or a comma-separated string', () => {
    it('should keep codes and ranges as strings without spaces', () => {
      expect(params({ fail_on_status: 404 }).fail_on_status).toEqual(['404']);
      expect(params({ fail_on_status: [404, '500-599'] }).fail_on_status).toEqual(['404', '500-599']);
      expect(params({ fail_on_status: '403, 500 - 503' }).fail_on_status).toEqual(['403', '500-503']);
    });
  });

  describe('When fail_on_status holds something that is not a status', () => {
    it.each([[99], ['600'], ['abc'], ['599-500'], [[404, 'x']], [true]])('should refuse %j naming fail_on_status', (value) => {
      expect(problemsOf({ fail_on_status: value })).toEqual([expect.objectContaining({ parameter: 'fail_on_status' })]);
    });
  });

  describe('When fail_on_status comes with html', () => {
    it('should refuse it: the page has no status', () => {
      expect(() => validateRenderParams('pdf', { html: '<p>x</p>', fail_on_status: 404 })).toThrow(/fail_on_status needs url/);
    });
  });

  describe('When a status is matched against the list', () => {
    it('should match single codes and inclusive ranges only', () => {
      const list = ['404', '500-503'];
      expect([404, 500, 502, 503].every((s) => statusMatches(s, list))).toBe(true);
      expect([200, 403, 405, 499, 504].some((s) => statusMatches(s, list))).toBe(false);
    });
  });

  describe('When content strings are given', () => {
    it('should take a list or one string as one item (commas kept), at most 20 each', () => {
      expect(params({ fail_if_content_contains: 'Verify you are human, please' }).fail_if_content_contains).toEqual(['Verify you are human, please']);
      expect(params({ fail_if_content_missing: ['Price', 'Total'] }).fail_if_content_missing).toEqual(['Price', 'Total']);
      expect(problemsOf({ fail_if_content_contains: Array.from({ length: 21 }, (_, i) => `s${i}`) })[0]).toMatchObject({
        parameter: 'fail_if_content_contains',
        message: expect.stringContaining('at most 20'),
      });
      expect(problemsOf({ fail_if_content_missing: [''] })[0]).toMatchObject({ parameter: 'fail_if_content_missing' });
    });
  });
});
