/**
 * Chromium sends a screencast frame only when the page changes, at irregular times. A video needs a
 * constant frame rate: output frame i shows what was on screen at `start + i / fps`, i.e. the last
 * frame that arrived at or before that instant. The timeline turns timed frames into "write this
 * frame n times", so the video has exactly `totalFrames` frames whatever the arrival pattern.
 */
export interface FrameTimeline<F> {
  /** A frame on screen from `atSeconds` on; returns the frame written before it and how many times. */
  push(frame: F, atSeconds: number): { frame: F; count: number } | undefined;
  /**
   * Time passed up to `atSeconds` with no new frame (a still page): the slots before that instant are
   * the current frame's, so they can be written while recording rather than all after it.
   */
  advance(atSeconds: number): { frame: F; count: number } | undefined;
  /** The recording ended: the last frame fills the slots left. */
  finish(): { frame: F; count: number } | undefined;
  /** Output frames decided so far. */
  readonly written: number;
}

/**
 * `startSeconds` is the video's first instant; without it, the first frame's arrival. Slots before the
 * first frame arrives show that frame (nothing was drawn over the page in between).
 */
export function frameTimeline<F>(fps: number, totalFrames: number, startSeconds?: number): FrameTimeline<F> {
  let start: number | undefined = startSeconds;
  let current: F | undefined;
  let written = 0;

  const flushUntil = (slots: number) => {
    const target = Math.min(totalFrames, slots);
    if (current === undefined || target <= written) return undefined;
    const count = target - written;
    written = target;
    return { frame: current, count };
  };

  return {
    push(frame, atSeconds) {
      start ??= atSeconds;
      // Slots whose instant lies before this frame's arrival still show the previous frame.
      const out = flushUntil(Math.ceil((atSeconds - start) * fps - 1e-9));
      current = frame;
      return out;
    },
    advance: (atSeconds) => (start === undefined ? undefined : flushUntil(Math.ceil((atSeconds - start) * fps - 1e-9))),
    finish: () => flushUntil(totalFrames),
    get written() {
      return written;
    },
  };
}

/** Frames of a video `durationSeconds` long at `fps` (at least one). */
export const frameCount = (durationSeconds: number, fps: number): number => Math.max(1, Math.round(durationSeconds * fps));
