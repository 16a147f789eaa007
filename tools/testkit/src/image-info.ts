import sharp from 'sharp';

/** Format and dimensions of an image, read by a real decoder. */
export async function imageInfo(body: Buffer): Promise<{ format: string; width: number; height: number }> {
  const meta = await sharp(body).metadata();
  return { format: meta.format ?? 'unknown', width: meta.width ?? 0, height: meta.height ?? 0 };
}

/** The RGB colour of one pixel. */
export async function pixelAt(body: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(body).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}
