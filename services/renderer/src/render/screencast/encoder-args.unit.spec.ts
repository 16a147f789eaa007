import { describe, expect, it } from 'vitest';
import { encoderArgs, videoSize } from './encoder-args.js';

describe('encoderArgs', () => {
  const job = { viewport: { width: 1280, height: 720 }, fps: 25, output: '/tmp/x/video' };

  it('should read JPEG frames at the frame rate and write them at the same rate, whatever their number', () => {
    const args = encoderArgs({ ...job, format: 'mp4' });
    expect(args.join(' ')).toContain('-f image2pipe -c:v mjpeg -framerate 25 -i pipe:0');
    expect(args.join(' ')).toContain(' -r 25 ');
    expect(args).not.toContain('-frames:v');
    expect(args.slice(-4)).toEqual(['-f', 'mp4', '-y', '/tmp/x/video']);
  });

  it.each([
    ['mp4', 'libx264', 'mp4'],
    ['mov', 'libx264', 'mov'],
    ['webm', 'libvpx-vp9', 'webm'],
    ['avi', 'mpeg4', 'avi'],
  ] as const)('should encode %s with %s into the %s muxer', (format, codec, muxer) => {
    const args = encoderArgs({ ...job, format });
    expect(args[args.indexOf('-c:v', args.indexOf('pipe:0')) + 1]).toBe(codec);
    expect(args[args.lastIndexOf('-f') + 1]).toBe(muxer);
  });

  it('should scale frames to the viewport (device pixels to CSS pixels) and crop only an odd H.264 size', () => {
    expect(encoderArgs({ ...job, format: 'mp4' })).toContain('scale=1280:720:flags=bicubic,format=pix_fmts=yuvj420p|yuv420p');
    expect(encoderArgs({ ...job, format: 'mp4', viewport: { width: 375, height: 667 } })).toContain(
      'scale=375:667:flags=bicubic,crop=374:666:0:0,format=pix_fmts=yuvj420p|yuv420p',
    );
    expect(encoderArgs({ ...job, format: 'webm', viewport: { width: 375, height: 667 } })).toContain(
      'scale=375:667:flags=bicubic,format=pix_fmts=yuv420p',
    );
  });
});

describe('videoSize', () => {
  it('should keep the viewport, but even for mp4 and mov', () => {
    expect(videoSize('mp4', { width: 375, height: 667 })).toEqual({ width: 374, height: 666 });
    expect(videoSize('mov', { width: 376, height: 668 })).toEqual({ width: 376, height: 668 });
    expect(videoSize('webm', { width: 375, height: 667 })).toEqual({ width: 375, height: 667 });
    expect(videoSize('avi', { width: 375, height: 667 })).toEqual({ width: 375, height: 667 });
  });
});
