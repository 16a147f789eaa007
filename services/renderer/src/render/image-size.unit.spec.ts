import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { imageSize } from './image-size.js';

const blank = () => sharp({ create: { width: 321, height: 123, channels: 3, background: '#123456' } });

describe('imageSize', () => {
  describe('When given an encoded image', () => {
    it.each([
      ['png', () => blank().png().toBuffer()],
      ['jpeg', () => blank().jpeg().toBuffer()],
      ['webp', () => blank().webp().toBuffer()],
      ['webp', () => blank().webp({ lossless: true }).toBuffer()],
      ['gif', () => blank().gif().toBuffer()],
    ] as const)('should read the %s header', async (type, encode) => {
      expect(imageSize(await encode())).toEqual({ type, width: 321, height: 123 });
    });
  });

  describe('When given something else', () => {
    it('should return undefined', () => {
      expect(imageSize(Buffer.from('%PDF-1.7 hello'))).toBeUndefined();
    });
  });
});
