import { describe, expect, it } from 'vitest';
import { ValidationError } from '@app/errors';
import { renderBudgetMs } from './screencast.js';
import { validateRenderParams } from './validate.js';

const parametersOf = (input: Record<string, unknown>) => {
  try {
    validateRenderParams('screencast', { url: 'https://example.com/', ...input });
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return ((e as ValidationError).details ?? []).map((d) => d.parameter);
  }
  throw new Error('expected a ValidationError');
};

describe('screencast parameters', () => {
  describe('When a screencast has only a url', () => {
    it('should apply the defaults: mp4, 5 s, video, and the scroll defaults', () => {
      const { params } = validateRenderParams('screencast', { url: 'https://example.com/' });
      expect(params).toMatchObject({
        format: 'mp4',
        duration: 5,
        scenario: 'video',
        scroll_by_amount: 1000,
        scroll_by_delay: 500,
        scroll_by_duration: 1500,
        scroll_back: true,
        scroll_back_delay: 800,
        scroll_easing: 'linear',
        viewport_width: 1280,
        viewport_height: 1080,
        timeout: 30,
      });
    });
  });

  describe('When every screencast parameter is given as a query string', () => {
    it('should coerce them', () => {
      const { params } = validateRenderParams('screencast', {
        html: '<p>x</p>',
        format: 'webm',
        duration: '2.5',
        scenario: 'scroll',
        scroll_by_amount: '300',
        scroll_by_delay: '0',
        scroll_by_duration: '1',
        scroll_back: 'false',
        scroll_back_delay: '0',
        scroll_easing: 'ease_in_out_quint',
        hide_selectors: '.a,.b',
        click_selector: '#go',
      });
      expect(params).toMatchObject({ format: 'webm', duration: 2.5, scroll_by_amount: 300, scroll_back: false, scroll_easing: 'ease_in_out_quint' });
    });
  });

  describe('When a value is out of range', () => {
    it.each([
      [{ format: 'gif' }, 'format'],
      [{ format: 'mkv' }, 'format'],
      [{ duration: 0 }, 'duration'],
      [{ duration: 31 }, 'duration'],
      [{ duration: 'long' }, 'duration'],
      [{ scenario: 'zoom' }, 'scenario'],
      [{ scenario: 'scroll', scroll_by_amount: 0 }, 'scroll_by_amount'],
      [{ scenario: 'scroll', scroll_by_amount: 1.5 }, 'scroll_by_amount'],
      [{ scenario: 'scroll', scroll_by_delay: -1 }, 'scroll_by_delay'],
      [{ scenario: 'scroll', scroll_by_duration: 0 }, 'scroll_by_duration'],
      [{ scenario: 'scroll', scroll_back: 'maybe' }, 'scroll_back'],
      [{ scenario: 'scroll', scroll_back_delay: -5 }, 'scroll_back_delay'],
      [{ scenario: 'scroll', scroll_easing: 'ease_in_sine' }, 'scroll_easing'],
      [{ timeout: 31 }, 'timeout'],
    ])('should refuse %j naming %s', (input, parameter) => {
      expect(parametersOf(input)).toEqual([parameter]);
    });
  });

  describe('When scroll parameters come without scenario=scroll', () => {
    it('should name the parameter', () => {
      expect(parametersOf({ scroll_by_amount: 500 })).toEqual(['scroll_by_amount']);
      expect(parametersOf({ scenario: 'video', scroll_easing: 'linear' })).toEqual(['scroll_easing']);
    });
  });

  describe('When a parameter of still outputs is given', () => {
    it('should refuse it as not a parameter of screencast', () => {
      expect(parametersOf({ clip_width: 10, clip_height: 10, full_page: true, capture_beyond_viewport: true, pdf_landscape: true })).toEqual([
        'clip_width',
        'clip_height',
        'full_page',
        'capture_beyond_viewport',
        'pdf_landscape',
      ]);
    });
  });

  describe('When screencast parameters are given to another operation', () => {
    it('should refuse them', () => {
      expect(() => validateRenderParams('screenshot', { url: 'https://example.com/', duration: 3 })).toThrow(/duration is not a parameter of screenshot/);
      expect(() => validateRenderParams('screenshot', { url: 'https://example.com/', format: 'mp4' })).toThrow(ValidationError);
    });
  });

  describe('renderBudgetMs', () => {
    it('should be the timeout for still outputs, and timeout + duration + the finishing allowance for a screencast', () => {
      expect(renderBudgetMs('screenshot', { timeout: 20, duration: 9 })).toBe(20_000);
      expect(renderBudgetMs('screencast', { timeout: 20, duration: 9 })).toBe(39_000);
      expect(renderBudgetMs('screencast', {})).toBe(45_000);
    });
  });
});
