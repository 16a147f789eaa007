import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';

const run = promisify(execFile);

/** Runs a poppler-utils tool on the PDF (written to a temporary file) and returns its output. */
async function withPdf<T>(pdf: Buffer, use: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'pdf-test-'));
  try {
    const file = join(dir, 'in.pdf');
    await writeFile(file, pdf);
    return await use(file, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface PdfFont {
  name: string;
  type: string;
  embedded: boolean;
}

/** The fonts a PDF uses, as `pdffonts` lists them (subset prefix such as ABCDEF+ taken off the name). */
export const pdfFonts = (pdf: Buffer): Promise<PdfFont[]> =>
  withPdf(pdf, async (file) => {
    const { stdout } = await run('pdffonts', [file]);
    return stdout
      .split('\n')
      .slice(2)
      .filter((line) => line.trim() !== '')
      .map((line) => {
        // name, type, encoding, emb, sub, uni, object, ID: the name has no spaces, the type may ("CID TrueType").
        const fields = line.trim().split(/\s+/);
        const emb = fields.at(-5);
        return { name: fields[0]!.replace(/^[A-Z]{6}\+/, ''), type: fields.slice(1, -6).join(' '), embedded: emb === 'yes' };
      });
  });

/** `pdfinfo` fields: Pages, Page size (of the first page, in points), ... */
export const pdfInfo = (pdf: Buffer): Promise<Record<string, string>> =>
  withPdf(pdf, async (file) => {
    const { stdout } = await run('pdfinfo', [file]);
    return Object.fromEntries(stdout.split('\n').flatMap((line) => {
      const colon = line.indexOf(':');
      return colon > 0 ? [[line.slice(0, colon).trim(), line.slice(colon + 1).trim()]] : [];
    }));
  });

/** Size of every page in points, from `pdfinfo -f 1 -l N`. */
export const pdfPageSizes = (pdf: Buffer): Promise<Array<{ width: number; height: number }>> =>
  withPdf(pdf, async (file) => {
    const { stdout } = await run('pdfinfo', ['-f', '1', '-l', '100000', file]);
    return [...stdout.matchAll(/^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts/gm)].map((m) => ({ width: Number(m[1]), height: Number(m[2]) }));
  });

/** The text of each page, from `pdftotext -layout` (pages are separated by form feeds). */
export const pdfPagesText = (pdf: Buffer): Promise<string[]> =>
  withPdf(pdf, async (file) => {
    const { stdout } = await run('pdftotext', ['-layout', file, '-']);
    const pages = stdout.split('\f');
    return pages.at(-1)?.trim() === '' ? pages.slice(0, -1) : pages;
  });

export interface Raster {
  width: number;
  height: number;
  /** RGB, row by row. */
  data: Buffer;
}

/** Page `page` (1-based) rasterised by `pdftoppm` at `dpi` dots per inch. */
export const rasterisePage = (pdf: Buffer, page: number, dpi: number): Promise<Raster> =>
  withPdf(pdf, async (file, dir) => {
    await run('pdftoppm', ['-png', '-r', String(dpi), '-f', String(page), '-l', String(page), '-singlefile', file, join(dir, 'page')]);
    const { data, info } = await sharp(await readFile(join(dir, 'page.png'))).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, data };
  });

/** The box (in pixels) holding every pixel darker than `threshold` on any channel, or undefined for a blank page. */
export function inkBox(raster: Raster, threshold = 200): { left: number; top: number; right: number; bottom: number } | undefined {
  let left = Infinity;
  let top = Infinity;
  let right = -1;
  let bottom = -1;
  for (let y = 0; y < raster.height; y++) {
    for (let x = 0; x < raster.width; x++) {
      const i = (y * raster.width + x) * 3;
      if (raster.data[i]! < threshold || raster.data[i + 1]! < threshold || raster.data[i + 2]! < threshold) {
        if (x < left) left = x;
        if (x > right) right = x;
        if (y < top) top = y;
        if (y > bottom) bottom = y;
      }
    }
  }
  return right < 0 ? undefined : { left, top, right, bottom };
}
