import { describe, expect, it } from 'vitest';
import { pdfOptions } from './pdf.js';
import { renderParams } from './testing/test-params.js';

describe('pdfOptions', () => {
  describe('When no pdf parameter is given', () => {
    it('should print letter portrait without backgrounds', () => {
      expect(pdfOptions(renderParams(), 1000)).toEqual({ format: 'letter', landscape: false, printBackground: false, timeout: 1000 });
    });
  });

  describe('When pdf parameters are given', () => {
    it('should pass them through', () => {
      const params = renderParams({ pdf_paper_format: 'a4', pdf_landscape: true, pdf_print_background: true });
      expect(pdfOptions(params, 5)).toEqual({ format: 'a4', landscape: true, printBackground: true, timeout: 5 });
    });
  });

  describe('When the paper format is unknown', () => {
    it('should fail with invalid_parameter', () => {
      expect(() => pdfOptions(renderParams({ pdf_paper_format: 'b5' }), 5)).toThrow(
        expect.objectContaining({ code: 'invalid_parameter' }),
      );
    });
  });
});
