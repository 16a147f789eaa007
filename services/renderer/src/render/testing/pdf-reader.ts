import { PDFArray, PDFDocument, PDFRawStream, PDFRef, decodePDFRawStream, type PDFPage } from 'pdf-lib';

export interface PdfInfo {
  pages: Array<{ width: number; height: number }>;
  /** Every page's content stream, decoded (drawing operators, e.g. `1 0 0 rg` for a red fill). */
  content: string;
}

function pageContent(page: PDFPage): string {
  const contents = page.node.Contents();
  const refs = contents instanceof PDFArray ? contents.asArray() : contents ? [contents] : [];
  return refs
    .map((ref) => (ref instanceof PDFRef ? page.doc.context.lookup(ref) : ref))
    .map((stream) => (stream instanceof PDFRawStream ? Buffer.from(decodePDFRawStream(stream).decode()).toString('latin1') : ''))
    .join('\n');
}

/** Page sizes (points) and drawing operators of a PDF, read with pdf-lib. */
export async function readPdf(body: Buffer): Promise<PdfInfo> {
  const doc = await PDFDocument.load(body);
  const pages = doc.getPages();
  return { pages: pages.map((p) => p.getSize()), content: pages.map(pageContent).join('\n') };
}
