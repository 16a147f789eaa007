import { startEncoder, type Encoder } from './encoder.js';
import type { EncoderShape } from './encoder-args.js';

/** Where a recording gets its encoder. */
export interface EncoderSource {
  /** An encoder for the shape: one started ahead when it fits and still runs, a new one otherwise. */
  start(shape: EncoderShape): Promise<Encoder>;
  /**
   * Starts an encoder ahead for the shape, unless one is there: called once a recording runs, when the
   * start no longer competes with the page's loading. A spare of another shape is stopped.
   */
  prepare(shape: EncoderShape): void;
  /** Stops the spare; later recordings start encoders of their own. Idempotent. */
  stop(): Promise<void>;
}

/** A new ffmpeg for every recording (tools and tests). */
export const freshEncoders = (ffmpegPath?: string): EncoderSource => ({
  start: (shape) => startEncoder(shape, ffmpegPath),
  prepare: () => undefined,
  stop: async () => undefined,
});

const keyOf = (s: EncoderShape) => `${s.format} ${s.viewport.width}x${s.viewport.height} ${s.fps}`;

/**
 * Keeps one encoder started ahead, of the shape (format, size, frame rate) of the last recording. ffmpeg
 * takes about 90 ms of CPU to start (it links some 200 libraries); started with the render, as it has to
 * be without a spare, that falls while the page loads, beside Chromium. The spare waits on its input,
 * idle (its pages are mostly the libraries'); like any encoder it reads the end of its input and exits if
 * the renderer dies, and its folder is removed by the next renderer to start.
 */
export function spareEncoders(ffmpegPath?: string): EncoderSource {
  let spare: { key: string; encoder: Promise<Encoder> } | undefined;
  let stopped = false;
  const discard = (encoder: Promise<Encoder>) => encoder.then((e) => e.kill(), () => undefined);

  return {
    async start(shape) {
      const taken = spare?.key === keyOf(shape) ? spare.encoder : undefined;
      if (!taken) return startEncoder(shape, ffmpegPath);
      spare = undefined;
      const encoder = await taken.catch(() => undefined);
      if (encoder?.alive) return encoder;
      await encoder?.kill();
      return startEncoder(shape, ffmpegPath);
    },
    prepare(shape) {
      const key = keyOf(shape);
      if (stopped || spare?.key === key) return;
      if (spare) void discard(spare.encoder);
      const encoder = startEncoder(shape, ffmpegPath);
      encoder.catch(() => undefined); // met by start(), which then starts another
      spare = { key, encoder };
    },
    async stop() {
      stopped = true;
      const left = spare;
      spare = undefined;
      if (left) await discard(left.encoder);
    },
  };
}
