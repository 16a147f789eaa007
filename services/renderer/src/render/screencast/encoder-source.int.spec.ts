import { existsSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { videoInfo } from '@app/testkit';
import { useRenderer } from '../testing/render-harness.js';
import { processExists, waitFor } from '../../browser/testing/processes.js';
import { encoderFolder, screencastEncoders } from '../testing/screencast-encoders.js';
import type { EncoderShape } from './encoder-args.js';
import { spareEncoders, type EncoderSource } from './encoder-source.js';

// Real ffmpeg processes: the spare is the very process a later recording writes to, and none outlives its source.

const MP4: EncoderShape = { format: 'mp4', viewport: { width: 64, height: 48 }, fps: 25 };
const WEBM: EncoderShape = { format: 'webm', viewport: { width: 64, height: 48 }, fps: 25 };
const frame = () => sharp({ create: { width: 64, height: 48, channels: 3, background: '#0a0' } }).jpeg().toBuffer();

describe('spare encoders', () => {
  let source: EncoderSource;
  afterEach(async () => {
    await source.stop();
    await waitFor(() => screencastEncoders().length === 0, 5_000);
  });

  /** Prepares a spare of the shape and returns its pid once it runs. */
  async function spareOf(shape: EncoderShape): Promise<number> {
    const before = new Set(screencastEncoders());
    source.prepare(shape);
    let pid: number | undefined;
    await waitFor(() => (pid = screencastEncoders().find((p) => !before.has(p))) !== undefined, 5_000);
    return pid!;
  }

  describe('When a recording of the shape prepared starts', () => {
    it('should get the process started ahead, which encodes its frames', async () => {
      source = spareEncoders();
      const spare = await spareOf(MP4);
      const encoder = await source.start(MP4);
      expect(encoder.pid).toBe(spare);
      expect(encoder.alive).toBe(true);
      await encoder.write(await frame(), 12);
      expect(await videoInfo(await encoder.finish())).toMatchObject({ codec: 'h264', width: 64, height: 48, frames: 12 });
      // Taken, it is no longer the spare: the next recording gets a process of its own.
      const next = await source.start(MP4);
      expect(next.pid).not.toBe(spare);
      await next.kill();
    });
  });

  describe('When the shape differs', () => {
    it('should start a new encoder and keep the spare; a spare of another shape replaces it', async () => {
      source = spareEncoders();
      const mp4 = await spareOf(MP4);
      const webm = await source.start(WEBM);
      expect(webm.pid).not.toBe(mp4);
      expect(processExists(mp4)).toBe(true);
      await webm.write(await frame(), 3);
      expect(await videoInfo(await webm.finish())).toMatchObject({ codec: 'vp9', frames: 3 });

      const folder = encoderFolder(mp4);
      const replacement = await spareOf(WEBM);
      await waitFor(() => !processExists(mp4) && !existsSync(folder), 5_000);
      const taken = await source.start(WEBM);
      expect(taken.pid).toBe(replacement);
      await taken.kill();
    });
  });

  describe('When the spare died while it waited', () => {
    it('should start a new encoder that works, and remove the dead one’s folder', async () => {
      source = spareEncoders();
      const spare = await spareOf(MP4);
      const folder = encoderFolder(spare);
      process.kill(spare, 'SIGKILL');
      await waitFor(() => !processExists(spare), 5_000); // reaped: the source has seen it exit
      const encoder = await source.start(MP4);
      expect(encoder.pid).not.toBe(spare);
      expect(existsSync(folder)).toBe(false);
      await encoder.write(await frame(), 2);
      expect(await videoInfo(await encoder.finish())).toMatchObject({ codec: 'h264', frames: 2 });
    });
  });

  describe('When the source is stopped (the renderer shuts down)', () => {
    it('should kill the spare, remove its folder and start none afterwards', async () => {
      source = spareEncoders();
      const spare = await spareOf(MP4);
      const folder = encoderFolder(spare);
      await source.stop();
      expect(processExists(spare)).toBe(false);
      expect(existsSync(folder)).toBe(false);
      source.prepare(MP4);
      await new Promise((r) => setTimeout(r, 300));
      expect(screencastEncoders()).toEqual([]);
    });
  });
});

describe('When screencast renders follow one another', () => {
  const encoders = spareEncoders();
  const r = useRenderer(() => ({ renderer: { screencast: { encoders } } }));
  afterAll(() => encoders.stop());

  it('should record the second into the encoder started during the first', async () => {
    const first = await r.render('screencast', { html: '<h1>first</h1>', duration: 1, block_annoyance: 'none' });
    expect(await videoInfo(first.body)).toMatchObject({ codec: 'h264', frames: 25 });
    // Nothing records now: the one encoder left is the spare, started while the first recorded.
    const [spare, ...more] = screencastEncoders();
    expect(more).toEqual([]);
    const seen = new Set<number>();
    const watching = setInterval(() => screencastEncoders().forEach((pid) => seen.add(pid)), 20);
    try {
      const second = await r.render('screencast', { html: '<h1>second</h1>', duration: 2, block_annoyance: 'none' });
      expect(await videoInfo(second.body)).toMatchObject({ codec: 'h264', frames: 50 });
    } finally {
      clearInterval(watching);
    }
    // The spare recorded the second; the only other encoder seen is the next spare.
    expect(processExists(spare!)).toBe(false);
    expect(seen.has(spare!)).toBe(true);
    expect(seen.size).toBe(2);
    expect(screencastEncoders()).toHaveLength(1);
  });
});
