import type { ScreencastFormat } from '@app/render-params';

export interface VideoSize {
  width: number;
  height: number;
}

interface Container {
  contentType: string;
  /** ffmpeg muxer. */
  muxer: string;
  /** Codec and its settings: fast enough to keep up with a live recording on a small machine. */
  codec: string[];
  /** H.264 in 4:2:0, what standard players expect, needs even dimensions. */
  evenSize: boolean;
  /** Pixel formats the codec is given, the first the frames' own where it is listed (no conversion). */
  pixelFormats: string;
  extra?: string[];
}

/**
 * H.264 in mp4 and mov: the index at the front, so players start before the whole file arrived. Tuned so
 * the encoder keeps up with a live recording beside a busy browser on a small machine, and is done soon
 * after the recording ends: no B-frames (their decision costs a third of the encoder's time and holds
 * frames back), the quickest subpixel refinement, and a rate-control lookahead of 2 frames without a
 * thread of its own. On a 5 s scroll at 1280×1080 that is about half of veryfast's CPU time for a file
 * about 5% larger; the lookahead is what the encoder still holds when the input ends (2 frames instead of
 * 5 took a screencast's end from about 75 to 50 ms, at the same size and SSIM), while none at all
 * (zerolatency) doubles the file.
 */
const H264 = {
  // Chromium's JPEG frames are full-range 4:2:0 (yuvj420p): encoded as they are (flagged full range, which
  // players honour), not converted to TV range first, which took a third of the encoder's wall time.
  pixelFormats: 'yuvj420p|yuv420p',
  codec: ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-x264-params', 'rc-lookahead=2:sync-lookahead=0:bframes=0:subme=1'],
  evenSize: true,
  extra: ['-movflags', '+faststart'],
};

export const CONTAINERS: Readonly<Record<ScreencastFormat, Container>> = {
  webm: {
    contentType: 'video/webm',
    muxer: 'webm',
    codec: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1', '-b:v', '0', '-crf', '36'],
    evenSize: false,
    pixelFormats: 'yuv420p',
  },
  mp4: { contentType: 'video/mp4', muxer: 'mp4', ...H264 },
  mov: { contentType: 'video/quicktime', muxer: 'mov', ...H264 },
  // MPEG-4 Part 2 tagged XVID: the AVI flavour players know.
  avi: { contentType: 'video/x-msvideo', muxer: 'avi', codec: ['-c:v', 'mpeg4', '-q:v', '3', '-vtag', 'xvid'], evenSize: false, pixelFormats: 'yuv420p' },
};

/**
 * The size of the video for a viewport: the viewport itself, except that mp4 and mov (H.264) leave out
 * the last column or row of an odd width or height.
 */
export function videoSize(format: ScreencastFormat, viewport: VideoSize): VideoSize {
  const even = (n: number) => (CONTAINERS[format].evenSize ? n - (n % 2) : n);
  return { width: even(viewport.width), height: even(viewport.height) };
}

/** What an encoder is started for, whatever the length of the recording: one started ahead fits any. */
export interface EncoderShape {
  format: ScreencastFormat;
  /** CSS pixels of the viewport; frames (device pixels) are scaled to it. */
  viewport: VideoSize;
  fps: number;
}

export interface EncodeJob extends EncoderShape {
  output: string;
}

/**
 * ffmpeg reads JPEG frames on stdin at a constant `fps` and writes each frame it is given once, so a video
 * of n frames (the caller repeats frames to fill the time) lasts n / fps seconds.
 */
export function encoderArgs(job: EncodeJob): string[] {
  const container = CONTAINERS[job.format];
  const size = videoSize(job.format, job.viewport);
  const { width, height } = job.viewport;
  // crop rounds odd sizes of 4:2:0 frames down by itself: used only where the codec needs it.
  const crop = size.width !== width || size.height !== height ? `,crop=${size.width}:${size.height}:0:0` : '';
  return [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'image2pipe',
    '-c:v',
    'mjpeg',
    '-framerate',
    String(job.fps),
    '-i',
    'pipe:0',
    '-vf',
    `scale=${width}:${height}:flags=bicubic${crop},format=pix_fmts=${container.pixelFormats}`,
    ...container.codec,
    '-r',
    String(job.fps),
    '-an',
    ...(container.extra ?? []),
    '-f',
    container.muxer,
    '-y',
    job.output,
  ];
}
