import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface VideoInfo {
  /** ffprobe's demuxer names, e.g. `mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `avi`. */
  container: string;
  /** The major brand of an ISO/QuickTime file: `isom` (mp4) or `qt  ` (mov). */
  brand: string | undefined;
  /** Matroska's DocType: `webm` or `matroska`. */
  docType: string | undefined;
  codec: string;
  width: number;
  height: number;
  durationSeconds: number;
  /** Frames counted by decoding the whole stream. */
  frames: number;
  frameRate: number;
}

async function withFile<T>(body: Buffer, use: (path: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'testkit-video-'));
  try {
    const path = join(dir, 'video');
    await writeFile(path, body);
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Container, codec, size, duration and frame count of a video, read by ffprobe (a real decoder). */
export function videoInfo(body: Buffer): Promise<VideoInfo> {
  return withFile(body, async (path) => {
    const { stdout } = await run('ffprobe', ['-v', 'error', '-count_frames', '-show_format', '-show_streams', '-of', 'json', path], {
      maxBuffer: 8 * 1024 * 1024,
    });
    const probe = JSON.parse(stdout) as {
      format: { format_name: string; duration?: string; tags?: Record<string, string> };
      streams: { codec_type: string; codec_name: string; width: number; height: number; nb_read_frames?: string; r_frame_rate: string }[];
    };
    const video = probe.streams.find((s) => s.codec_type === 'video');
    if (!video) throw new Error('no video stream');
    const [num, den] = video.r_frame_rate.split('/').map(Number);
    const head = body.subarray(0, 64).toString('latin1');
    return {
      container: probe.format.format_name,
      brand: probe.format.tags?.['major_brand'],
      docType: head.includes('webm') ? 'webm' : head.includes('matroska') ? 'matroska' : undefined,
      codec: video.codec_name,
      width: video.width,
      height: video.height,
      durationSeconds: Number(probe.format.duration),
      frames: Number(video.nb_read_frames),
      frameRate: num! / (den || 1),
    };
  });
}

/** The video's first frame as RGB bytes (`width` × `height` × 3), decoded by ffmpeg with the stream's colour range. */
export function videoFirstFrameRgb(body: Buffer): Promise<Buffer> {
  return withFile(body, async (path) => {
    const { stdout } = await run('ffmpeg', ['-v', 'error', '-i', path, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
      encoding: 'buffer',
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  });
}

/**
 * The video's frames sampled `perSecond` times a second, each as the mean brightness (0–255) of its
 * grey rows: `rows[i]` is the mean of band i of `bands` horizontal bands, top to bottom.
 */
export function videoFrames(body: Buffer, opts: { perSecond: number; bands?: number }): Promise<{ atSeconds: number; bands: number[] }[]> {
  const bands = opts.bands ?? 8;
  const width = 16;
  return withFile(body, async (path) => {
    const { stdout } = await run(
      'ffmpeg',
      ['-v', 'error', '-i', path, '-vf', `fps=${opts.perSecond},scale=${width}:${bands}:flags=area,format=gray`, '-f', 'rawvideo', 'pipe:1'],
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
    );
    const size = width * bands;
    const frames: { atSeconds: number; bands: number[] }[] = [];
    for (let offset = 0, i = 0; offset + size <= stdout.length; offset += size, i++) {
      const rows = Array.from({ length: bands }, (_, b) => {
        const row = stdout.subarray(offset + b * width, offset + (b + 1) * width);
        return row.reduce((sum, v) => sum + v, 0) / width;
      });
      frames.push({ atSeconds: i / opts.perSecond, bands: rows });
    }
    return frames;
  });
}
