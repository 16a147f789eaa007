import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createOwnedDir, killProcessGroup, removeDir } from '../../browser/index.js';
import { encoderArgs, type EncoderShape } from './encoder-args.js';

/** An ffmpeg process encoding one video from frames written to it. */
export interface Encoder {
  readonly pid: number | undefined;
  /** ffmpeg has not exited (an encoder started ahead may have, e.g. killed while it waited). */
  readonly alive: boolean;
  /** Writes `frame` `count` times; resolves once ffmpeg can take more (backpressure). */
  write(frame: Buffer, count: number): Promise<void>;
  /** Ends the input and resolves with the file once ffmpeg exited cleanly. */
  finish(): Promise<Buffer>;
  /** Kills the encoder's process group, waits for its exit and removes its files. Idempotent. */
  kill(): Promise<void>;
}

const STDERR_KEPT = 2_000;

/**
 * Starts ffmpeg in a process group of its own (like Chromium's), so kill() ends it and anything it
 * started at once. Its input is a pipe: if the renderer dies, ffmpeg reads end-of-file and exits.
 */
export async function startEncoder(job: EncoderShape, ffmpegPath = 'ffmpeg'): Promise<Encoder> {
  // Owned by this process: if the renderer is SIGKILLed, the next one to start removes the folder.
  const dir = await createOwnedDir('renderer-screencast-');
  const output = join(dir, `video.${job.format}`);
  const child = spawn(ffmpegPath, encoderArgs({ ...job, output }), { detached: true, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  // EPIPE when ffmpeg is gone: reported by the exit, not as an unhandled error.
  child.stdin?.on('error', () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  let done = false;
  void exited.then(() => (done = true));
  const removeFiles = () => removeDir(dir);

  const failure = async (what: string) => {
    const exit = await exited;
    const reason = exit.error?.message ?? (exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`);
    return new Error(`ffmpeg ${what} (${reason})${stderr ? `: ${stderr.trim()}` : ''}`);
  };

  return {
    pid: child.pid,
    get alive() {
      return !done;
    },
    async write(frame, count) {
      const stdin = child.stdin!;
      for (let i = 0; i < count; i++) {
        if (done || stdin.destroyed) throw await failure('stopped while encoding');
        if (!stdin.write(frame)) {
          await Promise.race([new Promise((resolve) => stdin.once('drain', resolve)), exited]);
        }
      }
    },
    async finish() {
      child.stdin?.end();
      const exit = await exited;
      if (exit.code !== 0) {
        await removeFiles();
        throw await failure('failed');
      }
      try {
        return await readFile(output);
      } finally {
        await removeFiles();
      }
    },
    async kill() {
      // Only a live process: once it exited (and was reaped) its pid may belong to someone else.
      if (!done) killProcessGroup(child.pid);
      child.stdin?.destroy();
      await exited;
      await removeFiles();
    },
  };
}
