import type { ChangeBox } from '../domain/monitor/monitor.js';

/** Changed pixels closer than about this many pixels belong to one region. */
const CELL = 16;

/**
 * The bounding boxes of the changed regions of a width×height mask (`changed(i)` for pixel i): changed
 * pixels are gathered in 16-pixel cells, neighbouring cells (8-connected) form one region, and each
 * region's box is the exact extent of its changed pixels. Largest first.
 */
export function changedRegions(width: number, height: number, changed: (index: number) => boolean): ChangeBox[] {
  const cols = Math.ceil(width / CELL);
  const rows = Math.ceil(height / CELL);
  // Per cell: pixel extent of its changed pixels, or none.
  const minX = new Int32Array(cols * rows).fill(-1);
  const minY = new Int32Array(cols * rows);
  const maxX = new Int32Array(cols * rows);
  const maxY = new Int32Array(cols * rows);
  for (let y = 0; y < height; y++) {
    const row = y * width;
    const cellRow = Math.floor(y / CELL) * cols;
    for (let x = 0; x < width; x++) {
      if (!changed(row + x)) continue;
      const c = cellRow + Math.floor(x / CELL);
      if (minX[c] === -1) {
        minX[c] = x;
        maxX[c] = x;
        minY[c] = y;
        maxY[c] = y;
      } else {
        if (x < minX[c]!) minX[c] = x;
        if (x > maxX[c]!) maxX[c] = x;
        maxY[c] = y;
      }
    }
  }
  const seen = new Uint8Array(cols * rows);
  const boxes: (ChangeBox & { area: number })[] = [];
  for (let start = 0; start < cols * rows; start++) {
    if (minX[start] === -1 || seen[start]) continue;
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -1;
    let y1 = -1;
    const stack = [start];
    seen[start] = 1;
    while (stack.length > 0) {
      const c = stack.pop()!;
      x0 = Math.min(x0, minX[c]!);
      y0 = Math.min(y0, minY[c]!);
      x1 = Math.max(x1, maxX[c]!);
      y1 = Math.max(y1, maxY[c]!);
      const cx = c % cols;
      const cy = (c - cx) / cols;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const nx = cx + dx;
          const ny = cy + dy;
          if (nx < 0 || ny < 0 || nx >= cols || ny >= rows) continue;
          const n = ny * cols + nx;
          if (minX[n] === -1 || seen[n]) continue;
          seen[n] = 1;
          stack.push(n);
        }
      }
    }
    const box = { x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1 };
    boxes.push({ ...box, area: box.width * box.height });
  }
  return boxes.sort((a, b) => b.area - a.area).map(({ area: _area, ...box }) => box);
}
