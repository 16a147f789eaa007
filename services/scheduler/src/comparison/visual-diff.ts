import pixelmatch from 'pixelmatch';
import sharp from 'sharp';
import type { ChangeBox, Comparison } from '../domain/monitor/monitor.js';
import { changedRegions } from './changed-regions.js';

/** How different two pixels' colours must be to count (pixelmatch's YIQ/OKLab distance, 0 to 1). */
const COLOUR_THRESHOLD = 0.1;
const DIFF_COLOUR: [number, number, number] = [255, 0, 0];
const BOX_COLOUR: [number, number, number] = [255, 0, 255];
/** Regions listed in the summary and drawn on the diff file, at most. */
const MAX_BOXES = 50;

interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

/** Any image sharp reads (png, jpeg, webp), as RGBA on a white background, padded to width×height. */
async function rgba(image: Uint8Array, width?: number, height?: number): Promise<Raw> {
  let pipeline = sharp(image).flatten({ background: '#ffffff' }).ensureAlpha();
  if (width !== undefined && height !== undefined) {
    const meta = await sharp(image).metadata();
    pipeline = pipeline.extend({
      right: width - (meta.width ?? width),
      bottom: height - (meta.height ?? height),
      background: { r: 255, g: 255, b: 255, alpha: 1 },
    });
  }
  const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function drawBox(data: Buffer, width: number, height: number, box: ChangeBox): void {
  const paint = (x: number, y: number) => {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    const i = (y * width + x) * 4;
    data[i] = BOX_COLOUR[0];
    data[i + 1] = BOX_COLOUR[1];
    data[i + 2] = BOX_COLOUR[2];
    data[i + 3] = 255;
  };
  const x0 = box.x - 2;
  const y0 = box.y - 2;
  const x1 = box.x + box.width + 1;
  const y1 = box.y + box.height + 1;
  for (let t = 0; t < 2; t++) {
    for (let x = x0; x <= x1; x++) {
      paint(x, y0 + t);
      paint(x, y1 - t);
    }
    for (let y = y0; y <= y1; y++) {
      paint(x0 + t, y);
      paint(x1 - t, y);
    }
  }
}

/**
 * Compares two screenshots with pixelmatch: anti-aliased pixels are detected and not counted; images of
 * different sizes are compared on the larger canvas (the missing part counts as changed). The score is the
 * percentage of pixels that differ; the diff file is a PNG of the newer image faded, changed pixels in red
 * and each changed region framed in magenta.
 */
export async function compareImages(before: Uint8Array, after: Uint8Array): Promise<Comparison> {
  const [b, a] = await Promise.all([sharp(before).metadata(), sharp(after).metadata()]);
  const width = Math.max(b.width ?? 0, a.width ?? 0);
  const height = Math.max(b.height ?? 0, a.height ?? 0);
  const [img1, img2] = await Promise.all([rgba(before, width, height), rgba(after, width, height)]);
  const output = Buffer.alloc(width * height * 4);
  const differing = pixelmatch(img1.data, img2.data, output, width, height, {
    threshold: COLOUR_THRESHOLD,
    includeAA: false,
    diffColor: DIFF_COLOUR,
  });
  const score = (differing / (width * height)) * 100;
  if (differing === 0) return { score: 0, summary: 'No pixel differs.', boxes: [] };
  const isDiff = (i: number) => output[i * 4] === 255 && output[i * 4 + 1] === 0 && output[i * 4 + 2] === 0;
  const boxes = changedRegions(width, height, isDiff).slice(0, MAX_BOXES);
  for (const box of boxes) drawBox(output, width, height, box);
  const body = await sharp(output, { raw: { width, height, channels: 4 } }).png({ compressionLevel: 6 }).toBuffer();
  const largest = boxes[0]!;
  const summary =
    `${formatPercent(score)} of pixels differ in ${boxes.length} region${boxes.length === 1 ? '' : 's'}; ` +
    `the largest at ${largest.x},${largest.y} (${largest.width}×${largest.height}).`;
  return { score, summary, boxes, diff: { body, extension: 'png', contentType: 'image/png' } };
}

const formatPercent = (p: number) => `${p < 0.01 ? p.toPrecision(2) : p.toFixed(2)}%`;
