import { describe, expect, it } from 'vitest';
import { ValidationError } from '@app/errors';
import { validateRenderParams } from './validate.js';

const URL_ = 'https://example.com/';

const problemsOf = (operation: Parameters<typeof validateRenderParams>[0], input: Record<string, unknown>) => {
  try {
    validateRenderParams(operation, { url: URL_, ...input });
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).details ?? [];
  }
  throw new Error('expected a ValidationError');
};

describe('element capture, waiting, styles, scripts and the full-page cap', () => {
  describe('When a screenshot names a selector', () => {
    it('should keep it, with error_on_selector_not_found true by default and false when asked (GET form too)', () => {
      expect(validateRenderParams('screenshot', { url: URL_, selector: '#chart' }).params).toMatchObject({
        selector: '#chart',
        error_on_selector_not_found: true,
      });
      expect(validateRenderParams('screenshot', { url: URL_, selector: '#chart', error_on_selector_not_found: 'false' }).params.error_on_selector_not_found).toBe(false);
    });

    it.each([
      [{ full_page: true }, 'full_page'],
      [{ full_page_scroll: true }, 'full_page_scroll'],
      [{ clip_width: 100, clip_height: 100 }, 'clip_*'],
    ])('should refuse it with %o, naming selector and the other parameter', (other, name) => {
      expect(problemsOf('screenshot', { selector: '#chart', ...other })).toEqual([
        { parameter: 'selector', message: `selector captures one element: it cannot be combined with ${name}` },
      ]);
    });

    it('should refuse it on a pdf, and an empty one', () => {
      expect(problemsOf('pdf', { selector: '#chart' })).toEqual([{ parameter: 'selector', message: 'selector is not a parameter of pdf' }]);
      expect(problemsOf('screenshot', { selector: '' })[0]).toMatchObject({ parameter: 'selector' });
    });
  });

  describe('When wait_for_selector is given', () => {
    it.each(['screenshot', 'pdf', 'scrape', 'screencast'] as const)('should be a parameter of %s', (operation) => {
      expect(validateRenderParams(operation, { url: URL_, wait_for_selector: '.late' }).params.wait_for_selector).toBe('.late');
    });
  });

  describe('When styles and scripts are given', () => {
    it('should take 100,000 bytes of each and refuse one byte more, counted in UTF-8', () => {
      const fits = 'a'.repeat(100_000);
      expect(validateRenderParams('screenshot', { url: URL_, styles: fits, scripts: fits }).params).toMatchObject({ styles: fits, scripts: fits });
      // 50,000 characters of two bytes each fit; one more does not.
      expect(validateRenderParams('screenshot', { url: URL_, styles: 'é'.repeat(50_000) }).params.styles).toHaveLength(50_000);
      expect(problemsOf('screenshot', { styles: 'é'.repeat(50_001), scripts: `${fits}a` })).toEqual([
        { parameter: 'styles', message: 'styles must be at most 100000 bytes (UTF-8)' },
        { parameter: 'scripts', message: 'scripts must be at most 100000 characters' },
      ]);
    });

    it('should take scripts on a scrape but refuse them with js_enabled=false, and refuse styles on a scrape', () => {
      expect(validateRenderParams('scrape', { url: URL_, scripts: 'document.title = "x"' }).params.scripts).toBe('document.title = "x"');
      expect(problemsOf('scrape', { scripts: '1', js_enabled: false })).toEqual([{ parameter: 'scripts', message: 'scripts cannot run with js_enabled=false' }]);
      expect(problemsOf('scrape', { styles: 'p{}' })).toEqual([{ parameter: 'styles', message: 'styles is not a parameter of scrape' }]);
    });
  });

  describe('When a full page is captured', () => {
    it('should stop at 16,384 px by default, take up to 50,000 and refuse more', () => {
      expect(validateRenderParams('screenshot', { url: URL_, full_page: true }).params.full_page_max_height).toBe(16_384);
      expect(validateRenderParams('screenshot', { url: URL_, full_page: true, full_page_max_height: '50000' }).params.full_page_max_height).toBe(50_000);
      expect(problemsOf('screenshot', { full_page: true, full_page_max_height: 50_001 })).toEqual([
        { parameter: 'full_page_max_height', message: 'full_page_max_height must be at most 50000' },
      ]);
    });

    it('should refuse full_page_max_height without full_page or full_page_scroll', () => {
      expect(problemsOf('screenshot', { full_page_max_height: 2_000 })).toEqual([
        { parameter: 'full_page_max_height', message: 'full_page_max_height needs full_page=true or full_page_scroll=true' },
      ]);
      expect(validateRenderParams('screenshot', { url: URL_, full_page_scroll: true, full_page_max_height: 2_000 }).params.full_page_max_height).toBe(2_000);
    });
  });
});
