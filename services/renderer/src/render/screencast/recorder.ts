import { setTimeout as sleep } from 'node:timers/promises';
import type { CDPSession, Page, Protocol } from 'puppeteer-core';
import { DEFAULT_VIEWPORT, type ScreencastFormat } from '@app/render-params';
import type { Encoder } from './encoder.js';
import { freshEncoders, type EncoderSource } from './encoder-source.js';
import { frameCount, frameTimeline } from './timeline.js';

/** Frames per second of every video: one frame is 40 ms. */
export const SCREENCAST_FPS = 25;
/** Frames received but not yet written to the encoder before Chromium has to wait. */
const MAX_PENDING = 8;
/**
 * How often, while recording, the slots already past are written with the frame on screen (a still page
 * sends no frames: without this its whole video would be encoded after the recording ends), and how far
 * behind the clock that stays, so a frame Chromium is still delivering keeps its slot. Every frame's
 * time: what is left to encode when the recording ends is at most about four frames.
 */
const ADVANCE_EVERY_MS = 40;
const ADVANCE_LAG_S = 0.12;
/** JPEG quality of the frames Chromium sends (they are re-encoded by the video codec). */
const FRAME_QUALITY = 90;

export interface RecorderOptions {
  format: ScreencastFormat;
  durationMs: number;
  /** Where the encoder comes from (default: a new ffmpeg on the PATH). */
  encoders?: EncoderSource | undefined;
}

export interface RecordOptions {
  /** Aborts the recording (the render's deadline, the page going away): the encoder is killed at once. */
  signal: AbortSignal;
  /** Started with the first frame, e.g. the scroll scenario; its end is not waited for. */
  scenario?: (() => Promise<unknown>) | undefined;
}

/** A recorder made ready ahead of its recording: its encoder and its DevTools session are being started. */
export interface ScreencastRecorder {
  /** Records the page (once) and resolves with the video. */
  record(opts: RecordOptions): Promise<Buffer>;
  /** Stops the encoder and the session if `record` was never called or did not finish. Idempotent. */
  abandon(): Promise<void>;
}

/**
 * Starts what a recording needs, the ffmpeg encoder (a process to spawn, unless one was started ahead)
 * and a DevTools session, without waiting for them: made while the page still loads, they are ready when
 * the recording starts. The page's viewport must be set already (the video has its size).
 */
export function screencastRecorder(page: Page, opts: RecorderOptions): ScreencastRecorder {
  const viewport = page.viewport() ?? { ...DEFAULT_VIEWPORT, deviceScaleFactor: 1 };
  const frames = frameCount(opts.durationMs / 1000, SCREENCAST_FPS);
  const encoders = opts.encoders ?? freshEncoders();
  const shape = { format: opts.format, viewport: { width: viewport.width, height: viewport.height }, fps: SCREENCAST_FPS };
  const encoding = encoders.start(shape);
  const sessionMade = page.createCDPSession();
  // Rejections are met where they are awaited (record) or dropped (abandon), never left unhandled.
  encoding.catch(() => undefined);
  sessionMade.catch(() => undefined);
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      await (await encoding.catch(() => undefined))?.kill();
      const session = await sessionMade.catch(() => undefined);
      if (session && !session.detached) await session.detach().catch(() => undefined);
    })());

  return {
    async record({ signal: outer, scenario }) {
      // The page or browser going away stops the recording as the deadline does.
      const gone = new AbortController();
      const onGone = () => gone.abort(new Error('The page went away during the recording.'));
      page.once('close', onGone);
      page.browser().once('disconnected', onGone);
      const signal = AbortSignal.any([outer, gone.signal]);
      const killOnAbort = () => void encoding.then((encoder) => encoder.kill(), () => undefined);
      signal.addEventListener('abort', killOnAbort, { once: true });
      try {
        const [encoder, session] = await abortable(Promise.all([encoding, sessionMade]), signal);
        signal.throwIfAborted();
        await capture(session, encoder, frames, viewport, viewport.deviceScaleFactor ?? 1, {
          durationMs: opts.durationMs,
          signal,
          scenario,
          // The next recording's encoder starts while this one runs, not while its page loads.
          recording: () => encoders.prepare(shape),
        });
        return await abortable(encoder.finish(), signal);
      } finally {
        signal.removeEventListener('abort', killOnAbort);
        page.off('close', onGone);
        page.browser().off('disconnected', onGone);
        await stop();
      }
    },
    abandon: stop,
  };
}

/**
 * Records the page's viewport with Chromium's own screencast (CDP Page.startScreencast) for exactly
 * `durationMs` into a constant-frame-rate video encoded by ffmpeg; the scenario starts with the first frame.
 * Each output frame is the one on screen at its instant; a slow encoder slows Chromium's frames down
 * instead of filling memory.
 */
export function recordScreencast(page: Page, opts: RecorderOptions & RecordOptions): Promise<Buffer> {
  return screencastRecorder(page, opts).record(opts);
}

async function capture(
  session: CDPSession,
  encoder: Encoder,
  frames: number,
  viewport: { width: number; height: number },
  scale: number,
  opts: RecordOptions & { durationMs: number; recording: () => void },
): Promise<void> {
  // The video starts as the screencast is asked for, not when its first frame arrives (50 to 150 ms
  // later on a busy machine): that frame is what was on screen from the start, nothing having moved yet.
  const startedAt = Date.now();
  const timeline = frameTimeline<Buffer>(SCREENCAST_FPS, frames, startedAt / 1000);
  let writing: Promise<void> = Promise.resolve();
  let failed: unknown;
  let firstFrame!: () => void;
  const first = new Promise<void>((resolve) => (firstFrame = resolve));

  // Chromium sends the next frame only once the last is acknowledged: acknowledging at once keeps the
  // video up to date with the page; past MAX_PENDING unwritten frames the acknowledgement waits for
  // the encoder, so a slow encoder slows the frames down instead of filling memory.
  let pending = 0;
  let heldAck: number | undefined;
  const ack = (sessionId: number) => void session.send('Page.screencastFrameAck', { sessionId }).catch(() => undefined);
  const onFrame = (event: Protocol.Page.ScreencastFrameEvent) => {
    const at = event.metadata.timestamp ?? Date.now() / 1000;
    const due = timeline.push(Buffer.from(event.data, 'base64'), at);
    firstFrame();
    pending++;
    writing = writing
      .then(() => due && encoder.write(due.frame, due.count))
      .catch((err: unknown) => void (failed ??= err))
      .then(() => {
        pending--;
        if (heldAck !== undefined) ack(heldAck);
        heldAck = undefined;
      });
    if (pending <= MAX_PENDING) ack(event.sessionId);
    else heldAck = event.sessionId;
  };
  const advance = setInterval(() => {
    const due = timeline.advance(Date.now() / 1000 - ADVANCE_LAG_S);
    if (due) writing = writing.then(() => encoder.write(due.frame, due.count)).catch((err: unknown) => void (failed ??= err));
  }, ADVANCE_EVERY_MS);
  session.on('Page.screencastFrame', onFrame);
  try {
    await session.send('Page.startScreencast', {
      format: 'jpeg',
      quality: FRAME_QUALITY,
      maxWidth: Math.round(viewport.width * scale),
      maxHeight: Math.round(viewport.height * scale),
      everyNthFrame: 1,
    });
    await abortable(first, opts.signal);
    opts.scenario?.().catch(() => undefined);
    opts.recording();
    await sleep(Math.max(0, opts.durationMs - (Date.now() - startedAt)), undefined, { signal: opts.signal }).catch((err: unknown) => {
      throw opts.signal.aborted ? opts.signal.reason : err; // timers/promises rejects with its own AbortError
    });
  } finally {
    clearInterval(advance);
    session.off('Page.screencastFrame', onFrame);
    // Not waited for: frames sent after the end are no longer listened to, and the session is detached next.
    void session.send('Page.stopScreencast').catch(() => undefined);
  }
  await abortable(writing, opts.signal);
  if (failed) throw failed;
  const rest = timeline.finish();
  if (rest) await abortable(encoder.write(rest.frame, rest.count), opts.signal);
}

/** The promise, or the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (err: unknown) => (signal.removeEventListener('abort', onAbort), reject(err)),
    );
  });
}
