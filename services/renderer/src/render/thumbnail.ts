import type { ImageFormat } from './screenshot.js';

export interface Thumbnail {
  width?: number | undefined;
  height?: number | undefined;
}

/**
 * image_width / image_height: the image is scaled to fit inside the box, keeping its aspect ratio,
 * as large as possible; with one side only, the other follows from the aspect ratio. Re-encoded in
 * the requested format (quality for jpeg and webp).
 */
export async function encodeImage(png: Buffer, format: ImageFormat, quality: number, box: Thumbnail): Promise<Buffer> {
  const { default: sharp } = await import('sharp'); // loaded on first use only
  let image = sharp(png);
  if (box.width !== undefined || box.height !== undefined) {
    image = image.resize({ width: box.width, height: box.height, fit: 'inside' });
  }
  switch (format) {
    case 'jpeg':
      return image.jpeg({ quality }).toBuffer();
    case 'webp':
      return image.webp({ quality }).toBuffer();
    case 'gif':
      return image.gif().toBuffer();
    case 'png':
      return image.png().toBuffer();
  }
}
