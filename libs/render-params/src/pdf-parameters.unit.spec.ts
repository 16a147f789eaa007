import { describe, expect, it } from 'vitest';
import { ValidationError } from '@app/errors';
import { cssLengthInches } from './css-length.js';
import { validateRenderParams } from './validate.js';

const problemsOf = (input: Record<string, unknown>) => {
  try {
    validateRenderParams('pdf', { url: 'https://example.com/', ...input });
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).details ?? [];
  }
  throw new Error('expected a ValidationError');
};
const pdf = (input: Record<string, unknown>) => validateRenderParams('pdf', { url: 'https://example.com/', ...input }).params;

describe('PDF parameters', () => {
  describe('When margins and sizes are given as CSS lengths or bare numbers', () => {
    it('should keep each as number and unit, a bare number in px', () => {
      const params = pdf({ pdf_margin: '1cm', pdf_margin_top: 30, pdf_margin_left: '0.5 IN', pdf_width: '210mm', pdf_height: '10pt' });
      expect(params).toMatchObject({ pdf_margin: '1cm', pdf_margin_top: '30px', pdf_margin_left: '0.5in', pdf_width: '210mm', pdf_height: '10pt' });
      expect(cssLengthInches('96px')).toBeCloseTo(1);
      expect(cssLengthInches('25.4mm')).toBeCloseTo(1);
      expect(cssLengthInches('72pt')).toBeCloseTo(1);
    });
  });

  describe('When a length is not one', () => {
    it.each([
      ['pdf_margin', '1em'],
      ['pdf_margin', '-1cm'],
      ['pdf_margin_bottom', 'auto'],
      ['pdf_width', '0mm'],
      ['pdf_height', '201in'],
      ['pdf_width', true],
    ])('should refuse %s=%s naming it', (name, value) => {
      expect(problemsOf({ [name]: value })).toEqual([expect.objectContaining({ parameter: name })]);
    });
  });

  describe('When pdf_scale is out of 0.1 to 2', () => {
    it('should refuse it and take the bounds', () => {
      expect(problemsOf({ pdf_scale: 0.05 })[0]).toMatchObject({ parameter: 'pdf_scale' });
      expect(problemsOf({ pdf_scale: '2.5' })[0]).toMatchObject({ parameter: 'pdf_scale' });
      expect(pdf({ pdf_scale: '0.1' }).pdf_scale).toBe(0.1);
      expect(pdf({ pdf_scale: 2 }).pdf_scale).toBe(2);
    });
  });

  describe('When pdf_page_ranges is given', () => {
    it.each(['1-3,5', '2', ' 1 - 2 , 4- ', '-3', '7-'])('should take %j', (ranges) => {
      expect(pdf({ pdf_page_ranges: ranges }).pdf_page_ranges).toBe(ranges);
    });
    it.each(['0', '3-1', 'a', '1,,2', '1-2-3', '1;2', ''])('should refuse %j with a 400 naming it', (ranges) => {
      expect(problemsOf({ pdf_page_ranges: ranges })).toEqual([expect.objectContaining({ parameter: 'pdf_page_ranges' })]);
    });
  });

  describe('When pdf_width or pdf_height comes with pdf_paper_format or a clip', () => {
    it('should refuse the combination', () => {
      expect(problemsOf({ pdf_width: '5in', pdf_paper_format: 'a4' })).toEqual([expect.objectContaining({ parameter: 'pdf_width' })]);
      expect(problemsOf({ pdf_height: '5in', clip_width: 100, clip_height: 100 })).toEqual([expect.objectContaining({ parameter: 'pdf_height' })]);
      expect(problemsOf({ pdf_page_ranges: '1', clip_width: 100, clip_height: 100 })).toEqual([expect.objectContaining({ parameter: 'pdf_page_ranges' })]);
    });
  });

  describe('When header, footer and pdf_prefer_css_page_size are given', () => {
    it('should keep the templates as written, and default pdf_prefer_css_page_size and pdf_scale', () => {
      const footer = 'page <span class="pageNumber"></span> of <span class="totalPages"></span>';
      expect(pdf({ pdf_footer: footer, pdf_header: '<span class="title"></span>' })).toMatchObject({ pdf_footer: footer, pdf_header: '<span class="title"></span>' });
      expect(pdf({})).toMatchObject({ pdf_prefer_css_page_size: false, pdf_scale: 1 });
      expect(problemsOf({ pdf_footer: 'x'.repeat(50_001) })[0]).toMatchObject({ parameter: 'pdf_footer' });
    });
  });

  describe('When a PDF parameter is sent to another operation', () => {
    it('should refuse it as not a parameter of that operation', () => {
      expect(() => validateRenderParams('screenshot', { url: 'https://example.com/', pdf_margin: '1cm' })).toThrow(/not a parameter of screenshot/);
    });
  });
});
