import pixelmatch from 'pixelmatch';
import sharp, { type Metadata } from 'sharp';
import type { ChangeBox, Comparison } from '../domain/monitor/monitor.js';
import { changedRegions } from './changed-regions.js';

/** How different two pixels' colours must be to count (pixelmatch's colour distance, 0 to 1). */
const COLOUR_THRESHOLD = 0.1;
const DIFF_COLOUR: [number, number, number] = [255, 0, 0];
const BOX_COLOUR: [number, number, number] = [255, 0, 255];
/** Regions listed in the summary and drawn on the diff file, at most. */
const MAX_BOXES = 50;
/** Pixels around the changed area given to pixelmatch: its anti-aliasing detection looks at neighbours. */
const MARGIN = 3;

interface Raw {
  data: Buffer;
  width: number;
  height: number;
}

/** Any image sharp reads (png, jpeg, webp), as RGBA, padded with white to width×height. */
async function rgba(image: Uint8Array, meta: Metadata, width: number, height: number): Promise<Raw> {
  let pipeline = sharp(image).toColourspace('srgb').ensureAlpha();
  if ((meta.width ?? width) < width || (meta.height ?? height) < height) {
    pipeline = pipeline.extend({
      right: width - (meta.width ?? width),
      bottom: height - (meta.height ?? height),
      background: { r: 255, g: 255, b: 255, alpha: 1 },
    });
  }
  const { data } = await pipeline.raw().toBuffer({ resolveWithObject: true });
  return { data, width, height };
}

/** The smallest rectangle holding every byte-wise different pixel, grown by MARGIN; undefined when equal. */
function differingArea(a: Buffer, b: Buffer, width: number, height: number): ChangeBox | undefined {
  const x32 = new Uint32Array(a.buffer, a.byteOffset, width * height);
  const y32 = new Uint32Array(b.buffer, b.byteOffset, width * height);
  let x0 = width;
  let y0 = height;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let first = -1;
    for (let x = 0; x < width; x++) {
      if (x32[row + x] !== y32[row + x]) {
        first = x;
        break;
      }
    }
    if (first === -1) continue;
    let last = first;
    for (let x = width - 1; x > first; x--) {
      if (x32[row + x] !== y32[row + x]) {
        last = x;
        break;
      }
    }
    if (y < y0) y0 = y;
    y1 = y;
    if (first < x0) x0 = first;
    if (last > x1) x1 = last;
  }
  if (x1 < 0) return undefined;
  const x = Math.max(0, x0 - MARGIN);
  const y = Math.max(0, y0 - MARGIN);
  return { x, y, width: Math.min(width, x1 + MARGIN + 1) - x, height: Math.min(height, y1 + MARGIN + 1) - y };
}

const crop = (img: Raw, area: ChangeBox): Buffer => {
  const out = Buffer.alloc(area.width * area.height * 4);
  for (let row = 0; row < area.height; row++) {
    const from = ((area.y + row) * img.width + area.x) * 4;
    img.data.copy(out, row * area.width * 4, from, from + area.width * 4);
  }
  return out;
};

/**
 * The diff file: the image in light grey (over white, 10 % of its luminance), the marks (an RGBA layer,
 * transparent where nothing is marked) over it, as a PNG. Every per-pixel step runs in libvips, off the
 * event loop: fading the page in JavaScript was the scheduler's costliest step under a burst of changes.
 */
async function diffPng(img: Raw, marks: Buffer): Promise<Buffer> {
  const { width, height } = img;
  const grey = await sharp(img.data, { raw: { width, height, channels: 4 } }).flatten({ background: '#ffffff' }).greyscale().linear(0.1, 229.5).raw().toBuffer();
  return sharp(grey, { raw: { width, height, channels: 1 } })
    .toColourspace('srgb')
    .composite([{ input: marks, raw: { width, height, channels: 4 } }])
    .png({ compressionLevel: 2, adaptiveFiltering: false })
    .toBuffer();
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
  const [x0, y0, x1, y1] = [box.x - 2, box.y - 2, box.x + box.width + 1, box.y + box.height + 1];
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
 * different sizes are compared on the larger canvas (the missing part counts as changed). pixelmatch runs
 * on the area where any byte differs (with a margin for its anti-aliasing detection), not on the whole
 * page. The score is the percentage of pixels that differ; the diff file is a PNG of the newer image
 * faded, changed pixels in red and each changed region framed in magenta.
 */
export async function compareImages(before: Uint8Array, after: Uint8Array): Promise<Comparison> {
  const [b, a] = await Promise.all([sharp(before).metadata(), sharp(after).metadata()]);
  const width = Math.max(b.width ?? 0, a.width ?? 0);
  const height = Math.max(b.height ?? 0, a.height ?? 0);
  const [img1, img2] = await Promise.all([rgba(before, b, width, height), rgba(after, a, width, height)]);
  const area = differingArea(img1.data, img2.data, width, height);
  if (!area) return { score: 0, summary: 'No pixel differs.', boxes: [] };
  const output = Buffer.alloc(area.width * area.height * 4);
  const differing = pixelmatch(crop(img1, area), crop(img2, area), output, area.width, area.height, {
    threshold: COLOUR_THRESHOLD,
    includeAA: false,
    diffColor: DIFF_COLOUR,
    diffMask: true,
  });
  if (differing === 0) return { score: 0, summary: 'No pixel differs beyond anti-aliasing.', boxes: [] };
  const score = (differing / (width * height)) * 100;
  const isDiff = (i: number) => output[i * 4] === 255 && output[i * 4 + 1] === 0 && output[i * 4 + 2] === 0 && output[i * 4 + 3] === 255;
  const boxes = changedRegions(area.width, area.height, isDiff)
    .slice(0, MAX_BOXES)
    .map((box) => ({ ...box, x: box.x + area.x, y: box.y + area.y }));
  const marks = Buffer.alloc(width * height * 4);
  for (let row = 0; row < area.height; row++) {
    for (let col = 0; col < area.width; col++) {
      if (!isDiff(row * area.width + col)) continue;
      const i = ((area.y + row) * width + area.x + col) * 4;
      marks[i] = DIFF_COLOUR[0];
      marks[i + 1] = DIFF_COLOUR[1];
      marks[i + 2] = DIFF_COLOUR[2];
      marks[i + 3] = 255;
    }
  }
  for (const box of boxes) drawBox(marks, width, height, box);
  const body = await diffPng(img2, marks);
  const largest = boxes[0]!;
  const summary =
    `${formatPercent(score)} of pixels differ in ${boxes.length} region${boxes.length === 1 ? '' : 's'}; ` +
    `the largest at ${largest.x},${largest.y} (${largest.width}×${largest.height}).`;
  return { score, summary, boxes, diff: { body, extension: 'png', contentType: 'image/png' } };
}

const formatPercent = (p: number) => `${p < 0.01 ? p.toPrecision(2) : p.toFixed(2)}%`;
