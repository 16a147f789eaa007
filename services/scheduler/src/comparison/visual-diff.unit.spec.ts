import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { compareImages } from './visual-diff.js';

const W = 400;
const H = 300;

/** A white page with grey "text" bars and, optionally, a block of colour at a place. */
async function page(block?: { left: number; top: number; width: number; height: number; colour: string }, format: 'png' | 'jpeg' = 'png') {
  const bars = [40, 80, 120].map((top) => ({
    input: { create: { width: 300, height: 12, channels: 4 as const, background: '#333333' } },
    left: 40,
    top,
  }));
  const blocks = block ? [{ input: { create: { width: block.width, height: block.height, channels: 4 as const, background: block.colour } }, left: block.left, top: block.top }] : [];
  return sharp({ create: { width: W, height: H, channels: 4, background: '#ffffff' } })
    .composite([...bars, ...blocks])
    [format]()
    .toBuffer();
}

describe('compareImages', () => {
  describe('When the same page is compared with itself', () => {
    it('should score 0 with no regions and no diff file', async () => {
      const a = await page();
      const result = await compareImages(a, await page());
      expect(result.score).toBe(0);
      expect(result.boxes).toEqual([]);
      expect(result.diff).toBeUndefined();
    });
  });

  describe('When one element changed colour', () => {
    it('should score the percentage of differing pixels and box exactly the changed element', async () => {
      const block = { left: 250, top: 200, width: 60, height: 40 };
      const result = await compareImages(await page({ ...block, colour: '#0000ff' }), await page({ ...block, colour: '#00ff00' }));
      expect(result.score).toBeCloseTo(((60 * 40) / (W * H)) * 100, 1);
      expect(result.boxes).toEqual([{ x: 250, y: 200, width: 60, height: 40 }]);
      expect(result.summary).toContain('1 region');
    });

    it('should write a PNG of the page size whose changed pixels are red and whose region is framed', async () => {
      const block = { left: 250, top: 200, width: 60, height: 40 };
      const result = await compareImages(await page({ ...block, colour: '#0000ff' }), await page({ ...block, colour: '#00ff00' }));
      const { data, info } = await sharp(result.diff!.body).raw().toBuffer({ resolveWithObject: true });
      expect(result.diff!.contentType).toBe('image/png');
      expect([info.width, info.height]).toEqual([W, H]);
      const at = (x: number, y: number) => [...data.subarray((y * W + x) * info.channels, (y * W + x) * info.channels + 3)];
      expect(at(280, 220)).toEqual([255, 0, 0]);
      expect(at(248, 198)).toEqual([255, 0, 255]);
      // Far from the change: the page faded to light grey (10 % of its luma over white), never marked.
      expect(at(10, 10)).toEqual([255, 255, 255]);
      expect(at(100, 45)).toEqual([235, 235, 235]); // a #333333 bar: luma 51 → 229.5 + 5.1
    });
  });

  describe('When two separate elements changed', () => {
    it('should list one box per region, largest first', async () => {
      const base = await sharp(await page()).composite([]).png().toBuffer();
      const changed = await sharp(base)
        .composite([
          { input: { create: { width: 10, height: 10, channels: 4, background: '#ff0000' } }, left: 5, top: 5 },
          { input: { create: { width: 50, height: 20, channels: 4, background: '#ff0000' } }, left: 300, top: 250 },
        ])
        .png()
        .toBuffer();
      const result = await compareImages(base, changed);
      expect(result.boxes).toEqual([
        { x: 300, y: 250, width: 50, height: 20 },
        { x: 5, y: 5, width: 10, height: 10 },
      ]);
    });
  });

  describe('When only anti-aliasing differs (the same text drawn with and without smoothing)', () => {
    it('should not count the smoothed edge pixels', async () => {
      const svg = (aa: boolean) =>
        Buffer.from(
          `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="100%" height="100%" fill="#fff"/>` +
            `<circle cx="200" cy="150" r="80" fill="#000" shape-rendering="${aa ? 'auto' : 'crispEdges'}"/></svg>`,
        );
      const smooth = await sharp(svg(true)).png().toBuffer();
      const crisp = await sharp(svg(false)).png().toBuffer();
      const raw = await compareImages(smooth, crisp);
      // Pixel for pixel they differ along the whole edge; as a comparison they do not.
      const [a, b] = await Promise.all([sharp(smooth).raw().toBuffer(), sharp(crisp).raw().toBuffer()]);
      expect(a.equals(b)).toBe(false);
      expect(raw.score).toBe(0);
    });
  });

  describe('When the newer screenshot is taller (the page grew)', () => {
    it('should compare on the larger canvas and box the added part', async () => {
      const short = await page();
      const tall = await sharp({ create: { width: W, height: H + 50, channels: 4, background: '#ffffff' } })
        .composite([
          { input: short, left: 0, top: 0 },
          { input: { create: { width: 100, height: 20, channels: 4, background: '#000000' } }, left: 20, top: H + 10 },
        ])
        .png()
        .toBuffer();
      const result = await compareImages(short, tall);
      expect(result.boxes).toEqual([{ x: 20, y: H + 10, width: 100, height: 20 }]);
    });
  });

  describe('When the screenshots are JPEGs', () => {
    it('should read them and find the changed element despite compression noise', async () => {
      const block = { left: 100, top: 180, width: 80, height: 60 };
      const result = await compareImages(await page({ ...block, colour: '#ffff00' }, 'jpeg'), await page({ ...block, colour: '#0000ff' }, 'jpeg'));
      const box = result.boxes[0]!;
      expect(box.x).toBeLessThanOrEqual(100);
      expect(box.y).toBeLessThanOrEqual(180);
      expect(box.x + box.width).toBeGreaterThanOrEqual(180);
      expect(box.y + box.height).toBeGreaterThanOrEqual(240);
      expect(result.boxes.length).toBe(1);
    });
  });
});
