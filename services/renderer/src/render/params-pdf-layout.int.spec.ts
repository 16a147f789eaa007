import { describe, expect, it } from 'vitest';
import { inkBox, pdfPageSizes, pdfPagesText, rasterisePage } from './testing/poppler.js';
import { useRenderer } from './testing/render-harness.js';

// Margins, scale, header and footer, page ranges, CSS page size and custom sheets, each read back from
// the PDF: its text (pdftotext), its page sizes (pdfinfo) and its pixels (pdftoppm at 96 dpi, so one
// raster pixel is one CSS pixel).

const r = useRenderer();

const doc = (body: string, style = '', head = '') =>
  `<!doctype html><html><head><meta charset="utf-8">${head}<style>html,body{margin:0}${style}</style></head><body>${body}</body></html>`;
/** `n` sheets, each starting with "Sheet i" (a page break after each). */
const sheets = (n: number) => doc(Array.from({ length: n }, (_, i) => `<p style="page-break-after:always">Sheet ${i + 1}</p>`).join(''));
/** A black block 200 CSS px wide, 100 tall, at the top-left of the page's content area. */
const BLOCK = doc('<div style="width:200px;height:100px;background:#000"></div>');
const pdf = async (input: Record<string, unknown>) => (await r.render('pdf', input)).body;
/** Where the block lands on the first page, in CSS px from the sheet's top-left corner. */
const blockBox = async (input: Record<string, unknown>) => inkBox(await rasterisePage(await pdf({ html: BLOCK, pdf_print_background: true, ...input }), 1, 96));

describe('PDF layout parameters', () => {
  describe('When a footer template shows the page number and count', () => {
    it('should print "page N of 3" at the foot of each of the 3 pages, and the header template at their top', async () => {
      const body = await pdf({
        html: sheets(3).replace('<head>', '<head><title>Quarterly report</title>'),
        pdf_header: '<div style="font-size:10px;width:100%;text-align:center"><span class="title"></span></div>',
        pdf_footer: '<div style="font-size:10px;width:100%;text-align:center">page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
      });
      const pages = await pdfPagesText(body);
      expect(pages).toHaveLength(3);
      pages.forEach((text, i) => {
        const lines = text.split('\n').filter((l) => l.trim() !== '');
        expect(lines[0]).toContain('Quarterly report');
        expect(lines.at(-1)).toContain(`page ${i + 1} of 3`);
        expect(text).toContain(`Sheet ${i + 1}`);
      });
    });

    it('should print no header or footer without the templates, and no browser default header with a footer only', async () => {
      const plain = await pdfPagesText(await pdf({ html: sheets(1).replace('<head>', '<head><title>Quarterly report</title>') }));
      expect(plain.join('')).not.toContain('Quarterly report');
      const footerOnly = await pdfPagesText(
        await pdf({ html: sheets(1).replace('<head>', '<head><title>Quarterly report</title>'), pdf_footer: '<div style="font-size:10px">foot</div>' }),
      );
      expect(footerOnly[0]).toContain('foot');
      expect(footerOnly[0]).not.toContain('Quarterly report');
    });
  });

  describe('When margins are given', () => {
    it('should place the content that far from the sheet edges, per side over pdf_margin', async () => {
      expect(await blockBox({})).toMatchObject({ left: 0, top: 0 });
      const all = await blockBox({ pdf_margin: '0.5in' });
      expect(all!.left).toBeCloseTo(48, -0.5);
      expect(all!.top).toBeCloseTo(48, -0.5);
      const sides = await blockBox({ pdf_margin: '0.5in', pdf_margin_top: '1in', pdf_margin_left: '2cm' });
      expect(sides!.top).toBeCloseTo(96, -0.5);
      expect(sides!.left).toBeCloseTo(75.6, -0.5);
      // The right margin narrows the content area: a full-width block ends that far from the right edge (letter: 816 px).
      const wide = inkBox(
        await rasterisePage(await pdf({ html: doc('<div style="height:50px;background:#000"></div>'), pdf_print_background: true, pdf_margin_right: '1in' }), 1, 96),
      );
      expect(wide!.left).toBe(0);
      expect(wide!.right + 1).toBeCloseTo(816 - 96, -0.5);
    });

    it('should refuse margins that leave no room, naming the margin', async () => {
      await expect(pdf({ html: BLOCK, pdf_margin_left: '5in', pdf_margin_right: '4in' })).rejects.toMatchObject({
        code: 'invalid_parameter',
        details: [{ parameter: 'pdf_margin_left' }],
      });
    });

    it('should give a header a 1cm top margin when no top margin is given', async () => {
      const box = await blockBox({ pdf_header: '<span></span>' });
      expect(box!.top).toBeCloseTo(37.8, -0.5);
    });
  });

  describe('When pdf_scale is given', () => {
    it('should print the content at that scale', async () => {
      const half = await blockBox({ pdf_scale: 0.5 });
      expect(half!.right - half!.left + 1).toBeCloseTo(100, -0.5);
      expect(half!.bottom - half!.top + 1).toBeCloseTo(50, -0.5);
      const double = await blockBox({ pdf_scale: 2 });
      expect(double!.right - double!.left + 1).toBeCloseTo(400, -0.5);
    });
  });

  describe('When pdf_page_ranges is given', () => {
    it('should keep those pages only', async () => {
      const kept = await pdfPagesText(await pdf({ html: sheets(5), pdf_page_ranges: '1-3,5' }));
      expect(kept.map((t) => t.trim())).toEqual(['Sheet 1', 'Sheet 2', 'Sheet 3', 'Sheet 5']);
      expect((await pdfPagesText(await pdf({ html: sheets(5), pdf_page_ranges: '4-' }))).map((t) => t.trim())).toEqual(['Sheet 4', 'Sheet 5']);
    });

    it('should answer 400 naming pdf_page_ranges for pages the document does not have', async () => {
      await expect(pdf({ html: sheets(2), pdf_page_ranges: '3-4' })).rejects.toMatchObject({
        code: 'invalid_parameter',
        details: [{ parameter: 'pdf_page_ranges' }],
      });
    });
  });

  describe('When pdf_width and pdf_height are given', () => {
    it('should print sheets of that size instead of the paper format', async () => {
      expect(await pdfPageSizes(await pdf({ html: sheets(2), pdf_width: '5in', pdf_height: '7in' }))).toEqual([
        { width: 360, height: 504 },
        { width: 360, height: 504 },
      ]);
      const [a5] = await pdfPageSizes(await pdf({ html: sheets(1), pdf_width: '148mm', pdf_height: '210mm' }));
      expect(a5!.width).toBeCloseTo(419.5, -0.5);
      expect(a5!.height).toBeCloseTo(595.3, -0.5);
      // One side only: the other is letter's.
      expect(await pdfPageSizes(await pdf({ html: sheets(1), pdf_width: '400px' }))).toEqual([{ width: 300, height: 792 }]);
    });
  });

  describe('When the page declares its own @page size', () => {
    it('should print at that size only with pdf_prefer_css_page_size', async () => {
      const html = doc('<p>card</p>', '@page { size: 4in 6in }');
      expect(await pdfPageSizes(await pdf({ html }))).toEqual([{ width: 612, height: 792 }]);
      expect(await pdfPageSizes(await pdf({ html, pdf_prefer_css_page_size: true }))).toEqual([{ width: 288, height: 432 }]);
    });
  });
});
