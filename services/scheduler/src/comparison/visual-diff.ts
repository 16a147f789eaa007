import pixelmatch from 'pixelmatch';
import sharp from 'sharp';
import type { ChangeBox, Comparison } from '../domain/monitor/monitor.js';
import { changedRegions } from './changed-regions.js';

/** How different two pixels' colours must be to count (pixelmatch's colour distance, 0 to 1). */
const COLOUR_THRESHOLD = 0.1;
const DIFF_COLOUR = [255, 0, 0] as const;
const BOX_COLOUR = [255, 0, 255] as const;
/** Regions listed in the summary and drawn on the diff file, at most. */
const MAX_BOXES = 50;
/** Pixels around the changed area given to pixelmatch: its anti-aliasing detection looks at neighbours. */
const MARGIN = 3;

/** An image as RGBA pixels, 4 bytes each, row after row. */
export interface DecodedImage {
  data: Buffer;
  width: number;
  height: number;
}

/** Any image sharp reads (png, jpeg, webp), as RGBA at its own size. */
export async function decodeImage(image: Uint8Array): Promise<DecodedImage> {
  const { data, info } = await sharp(image).toColourspace('srgb').ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** The image padded with white to width×height (itself when it is that size). */
async function padded(img: DecodedImage, width: number, height: number): Promise<DecodedImage> {
  if (img.width === width && img.height === height) return img;
  const { data } = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 4 } })
    .extend({ right: width - img.width, bottom: height - img.height, background: { r: 255, g: 255, b: 255, alpha: 1 } })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width, height };
}

/** Whether every pixel is the same colour (a blank page); stops at the first that is not. */
export function isOneColour(img: DecodedImage): boolean {
  const pixels = new Uint32Array(img.data.buffer, img.data.byteOffset, img.width * img.height);
  const first = pixels[0];
  for (let i = 1; i < pixels.length; i++) if (pixels[i] !== first) return false;
  return true;
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

const crop = (img: DecodedImage, area: ChangeBox): Buffer => {
  const out = Buffer.alloc(area.width * area.height * 4);
  for (let row = 0; row < area.height; row++) {
    const from = ((area.y + row) * img.width + area.x) * 4;
    img.data.copy(out, row * area.width * 4, from, from + area.width * 4);
  }
  return out;
};

/** The faded grey of each luma (0-255): 10 % of it over white. */
const FADED = Uint8Array.from({ length: 256 }, (_, luma) => Math.round(229.5 + luma * 0.1));

/** The faded grey of one RGBA pixel read as a little-endian uint32 (r in the low byte). */
function fadedOf(pixel: number): number {
  // BT.709 luma in 8-bit fixed point (the weights sum to 256).
  let luma = ((pixel & 0xff) * 54 + ((pixel >>> 8) & 0xff) * 183 + ((pixel >>> 16) & 0xff) * 19) >> 8;
  const alpha = pixel >>> 24;
  if (alpha !== 255) luma = ((luma * alpha + 255 * (255 - alpha)) / 255) | 0;
  return FADED[luma]!;
}

/**
 * The diff file's background: the image in light grey (over white, 10 % of its luminance), opaque RGB.
 * Integer arithmetic and a table, once per run of same-coloured pixels (a page is mostly runs: about 3 ms at
 * 1280×1080); libvips' colourspace and linear operations work in floating point and cost 35 ms of CPU.
 */
function faded(img: DecodedImage): Buffer {
  const pixels = img.width * img.height;
  const src = new Uint32Array(img.data.buffer, img.data.byteOffset, pixels);
  const out = Buffer.allocUnsafe(pixels * 3);
  // TypedArray's fill: Buffer's own checks its arguments in JavaScript on every call.
  const bytes = new Uint8Array(out.buffer, out.byteOffset, out.length);
  let i = 0;
  while (i < pixels) {
    const pixel = src[i]!;
    let end = i + 1;
    while (end < pixels && src[end] === pixel) end++;
    bytes.fill(fadedOf(pixel), i * 3, end * 3);
    i = end;
  }
  return out;
}

function paint(data: Buffer, width: number, height: number, x: number, y: number, colour: readonly [number, number, number]): void {
  if (x < 0 || y < 0 || x >= width || y >= height) return;
  const i = (y * width + x) * 3;
  data[i] = colour[0];
  data[i + 1] = colour[1];
  data[i + 2] = colour[2];
}

function drawBox(data: Buffer, width: number, height: number, box: ChangeBox): void {
  const [x0, y0, x1, y1] = [box.x - 2, box.y - 2, box.x + box.width + 1, box.y + box.height + 1];
  for (let t = 0; t < 2; t++) {
    for (let x = x0; x <= x1; x++) {
      paint(data, width, height, x, y0 + t, BOX_COLOUR);
      paint(data, width, height, x, y1 - t, BOX_COLOUR);
    }
    for (let y = y0; y <= y1; y++) {
      paint(data, width, height, x0 + t, y, BOX_COLOUR);
      paint(data, width, height, x1 - t, y, BOX_COLOUR);
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
  const [b, a] = await Promise.all([decodeImage(before), decodeImage(after)]);
  return compareDecodedImages(b, a);
}

/** `compareImages` of images decoded already (a run's screenshot is decoded once for all its checks). */
export async function compareDecodedImages(before: DecodedImage, after: DecodedImage): Promise<Comparison> {
  const width = Math.max(before.width, after.width);
  const height = Math.max(before.height, after.height);
  const [img1, img2] = await Promise.all([padded(before, width, height), padded(after, width, height)]);
  const area = differingArea(img1.data, img2.data, width, height);
  if (!area) return { score: 0, summary: 'No pixel differs.', boxes: [] };
  const output = Buffer.alloc(area.width * area.height * 4);
  const differing = pixelmatch(crop(img1, area), crop(img2, area), output, area.width, area.height, {
    threshold: COLOUR_THRESHOLD,
    includeAA: false,
    diffColor: [...DIFF_COLOUR],
    diffMask: true,
  });
  if (differing === 0) return { score: 0, summary: 'No pixel differs beyond anti-aliasing.', boxes: [] };
  const score = (differing / (width * height)) * 100;
  const isDiff = (i: number) => output[i * 4] === 255 && output[i * 4 + 1] === 0 && output[i * 4 + 2] === 0 && output[i * 4 + 3] === 255;
  const boxes = changedRegions(area.width, area.height, isDiff)
    .slice(0, MAX_BOXES)
    .map((box) => ({ ...box, x: box.x + area.x, y: box.y + area.y }));
  const diff = faded(img2);
  for (let row = 0; row < area.height; row++) {
    for (let col = 0; col < area.width; col++) {
      if (isDiff(row * area.width + col)) paint(diff, width, height, area.x + col, area.y + row, DIFF_COLOUR);
    }
  }
  for (const box of boxes) drawBox(diff, width, height, box);
  const body = await sharp(diff, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 2, adaptiveFiltering: false }).toBuffer();
  const largest = boxes[0]!;
  const summary =
    `${formatPercent(score)} of pixels differ in ${boxes.length} region${boxes.length === 1 ? '' : 's'}; ` +
    `the largest at ${largest.x},${largest.y} (${largest.width}×${largest.height}).`;
  return { score, summary, boxes, diff: { body, extension: 'png', contentType: 'image/png' } };
}

const formatPercent = (p: number) => `${p < 0.01 ? p.toPrecision(2) : p.toFixed(2)}%`;
