import { describe, expect, it } from 'vitest';
import { pdfPrintError, pdfLayoutOptions } from './pdf-layout.js';
import { pdfOptions } from './pdf.js';
import { renderParams } from './testing/test-params.js';

describe('pdfLayoutOptions', () => {
  describe('When no layout parameter is given', () => {
    it('should add nothing to the paper format', () => {
      expect(pdfLayoutOptions(renderParams())).toEqual({});
    });
  });

  describe('When pdf_margin and per-side margins are given', () => {
    it('should take a side of its own over pdf_margin', () => {
      expect(pdfLayoutOptions(renderParams({ pdf_margin: '1cm', pdf_margin_left: '2in' })).margin).toEqual({ top: '1cm', right: '1cm', bottom: '1cm', left: '2in' });
    });
  });

  describe('When only a footer is given', () => {
    it('should show header and footer with an empty header, and give the bottom 1cm of margin', () => {
      expect(pdfLayoutOptions(renderParams({ pdf_footer: '<p>f</p>' }))).toEqual({
        displayHeaderFooter: true,
        headerTemplate: '<span></span>',
        footerTemplate: '<p>f</p>',
        margin: { bottom: '1cm' },
      });
      expect(pdfLayoutOptions(renderParams({ pdf_footer: '<p>f</p>', pdf_margin: '0px' })).margin).toEqual({ top: '0px', right: '0px', bottom: '0px', left: '0px' });
    });
  });

  describe('When pdf_width or pdf_height is given', () => {
    it('should print on that sheet instead of the paper format, the missing side from letter', () => {
      const options = pdfOptions(renderParams({ pdf_width: '5in' }), 1000);
      expect(options).toMatchObject({ width: '5in', height: '11in' });
      expect(options.format).toBeUndefined();
    });
  });

  describe('When the margins leave no room on the sheet', () => {
    it('should refuse them naming the side given, landscape turning the sheet', () => {
      expect(() => pdfLayoutOptions(renderParams({ pdf_margin_top: '6in', pdf_margin_bottom: '5in' }))).toThrow(
        expect.objectContaining({ code: 'invalid_parameter', details: [expect.objectContaining({ parameter: 'pdf_margin_top' })] }),
      );
      // 11in tall in portrait, 8.5in in landscape.
      expect(() => pdfLayoutOptions(renderParams({ pdf_margin: '4.5in', pdf_landscape: false }))).toThrow();
      expect(() => pdfLayoutOptions(renderParams({ pdf_margin_top: '5in', pdf_margin_bottom: '5in' }))).not.toThrow();
      expect(() => pdfLayoutOptions(renderParams({ pdf_margin_top: '5in', pdf_margin_bottom: '5in', pdf_landscape: true }))).toThrow();
    });
  });

  describe('When the browser refuses the page ranges', () => {
    it('should answer 400 naming pdf_page_ranges, and leave other errors as they are', () => {
      const refused = new Error('Protocol error (Page.printToPDF): Page range exceeds page count');
      expect(pdfPrintError(refused, renderParams({ pdf_page_ranges: '9' }))).toMatchObject({ code: 'invalid_parameter', details: [{ parameter: 'pdf_page_ranges' }] });
      expect(pdfPrintError(refused, renderParams())).toBe(refused);
      const other = new Error('Target closed');
      expect(pdfPrintError(other, renderParams({ pdf_page_ranges: '9' }))).toBe(other);
    });
  });
});
