import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureServer, videoFirstFrameRgb, videoInfo, type FixtureServer } from '@app/testkit';
import { BrowserPool } from '../../browser/index.js';
import { processExists, waitFor } from '../../browser/testing/processes.js';
import { startEncoder } from './encoder.js';
import { useRenderer } from '../testing/render-harness.js';
import { recordScreencast } from './recorder.js';
import { screencastEncoders } from '../testing/screencast-encoders.js';

// The encoder is a real ffmpeg process: these tests prove it never outlives its recording.

const frame = () => sharp({ create: { width: 64, height: 48, channels: 3, background: '#f00' } }).jpeg().toBuffer();

describe('screencast encoder', () => {
  describe('When it is fed frames and finished', () => {
    it('should encode each frame written once, and exit', async () => {
      const encoder = await startEncoder({ format: 'webm', viewport: { width: 64, height: 48 }, fps: 25 });
      await encoder.write(await frame(), 10);
      const info = await videoInfo(await encoder.finish());
      expect(info).toMatchObject({ codec: 'vp9', width: 64, height: 48, frames: 10 });
      expect(processExists(encoder.pid!)).toBe(false);
    });
  });

  describe.each(['mp4', 'mov', 'webm', 'avi'] as const)('When %s frames of known colours are encoded', (format) => {
    // Near black and near white move by some 16 levels when full-range frames are read as TV range (or the
    // reverse): the decoded video keeps each colour of the JPEG it was given.
    const COLOURS = [
      [16, 16, 16],
      [240, 240, 240],
      [200, 30, 40],
      [40, 160, 90],
    ] as const;
    it('should decode to the same colours', async () => {
      const width = 64;
      const height = 48;
      const raw = Buffer.alloc(width * height * 3);
      for (let y = 0; y < height; y++)
        for (let x = 0; x < width; x++) raw.set(COLOURS[Math.floor(x / (width / COLOURS.length))]!, (y * width + x) * 3);
      const jpeg = await sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 95 }).toBuffer();
      const encoder = await startEncoder({ format, viewport: { width, height }, fps: 25 });
      await encoder.write(jpeg, 5);
      const decoded = await videoFirstFrameRgb(await encoder.finish());
      expect(decoded.length).toBe(width * height * 3);
      COLOURS.forEach((colour, i) => {
        const at = (Math.floor(height / 2) * width + Math.floor((i + 0.5) * (width / COLOURS.length))) * 3;
        [...decoded.subarray(at, at + 3)].forEach((value, c) => expect(Math.abs(value - colour[c]!), `${format} colour ${i} channel ${c}`).toBeLessThanOrEqual(8));
      });
    });
  });

  describe('When the recording is aborted before its end (the deadline passed)', () => {
    let pool: BrowserPool;
    beforeAll(async () => {
      pool = new BrowserPool({ browsers: 1, concurrency: 1, maxQueue: 1, restartAfter: 0, warmContexts: 0 });
      await pool.start();
    });
    afterAll(() => pool.stop());

    it('should stop at once and leave no encoder running', async () => {
      const seen = new Set<number>();
      const watching = setInterval(() => screencastEncoders().forEach((pid) => seen.add(pid)), 50);
      const started = Date.now();
      try {
        const recording = pool.run(
          async (page) => {
            await page.setContent('<p>x</p>');
            return recordScreencast(page, { format: 'mp4', durationMs: 20_000, signal: AbortSignal.timeout(1_500) });
          },
          { timeoutMs: 30_000 },
        );
        await expect(recording).rejects.toMatchObject({ name: 'TimeoutError' });
      } finally {
        clearInterval(watching);
      }
      expect(Date.now() - started).toBeLessThan(15_000); // the recording asked for 20 s
      expect(seen.size).toBe(1);
      expect([...seen].filter(processExists)).toEqual([]);
    });
  });

  describe('When a screencast render loads its page', () => {
    const r = useRenderer();
    let fixture: FixtureServer;
    let release: () => void = () => undefined;
    beforeAll(async () => {
      fixture = await startFixtureServer({
        '/held': (_req, res) => {
          release = () => void res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>loaded</h1>');
        },
        '/never': () => undefined,
      });
    });
    afterAll(() => fixture?.close());

    it('should have its encoder running already while the page still loads, and record once it loaded', async () => {
      const rendering = r.render('screencast', { url: `${fixture.origin}/held`, duration: 1, block_annoyance: 'none' });
      await waitFor(() => fixture.hits('/held') === 1, 10_000); // asked for, not answered yet
      await waitFor(() => screencastEncoders().length === 1, 5_000);
      release();
      const out = await rendering;
      expect(await videoInfo(out.body)).toMatchObject({ codec: 'h264', frames: 25 });
      await waitFor(() => screencastEncoders().length === 0, 5_000);
    });

    it('should leave no encoder running when the page never loads within the timeout', async () => {
      const seen = new Set<number>();
      const watching = setInterval(() => screencastEncoders().forEach((pid) => seen.add(pid)), 50);
      try {
        await expect(r.render('screencast', { url: `${fixture.origin}/never`, duration: 1, timeout: 2, block_annoyance: 'none' })).rejects.toMatchObject({
          code: 'render_timeout',
        });
      } finally {
        clearInterval(watching);
      }
      expect(seen.size).toBe(1); // it was started while the page loaded
      expect([...seen].filter(processExists)).toEqual([]);
    });
  });

  describe('When the renderer process is killed while recording', () => {
    it('should see the encoder exit by itself (end of its input), not stay behind as an orphan', async () => {
      const encoderModule = fileURLToPath(new URL('../../../dist/render/screencast/encoder.js', import.meta.url));
      const script = `
        const { startEncoder } = await import(${JSON.stringify(encoderModule)});
        const encoder = await startEncoder({ format: 'mp4', viewport: { width: 64, height: 48 }, fps: 25 });
        process.stdout.write(String(encoder.pid) + '\\n');
        const frame = Buffer.from(${JSON.stringify((await frame()).toString('base64'))}, 'base64');
        setInterval(() => encoder.write(frame, 1), 40);`;
      const renderer = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      const pid = await new Promise<number>((resolve) => renderer.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
      expect(processExists(pid)).toBe(true);
      renderer.kill('SIGKILL');
      await waitFor(() => !processExists(pid) || isZombie(pid), 10_000);
    });
  });
});

function isZombie(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] === 'Z';
  } catch {
    return true;
  }
}
