import { describe, expect, it } from 'vitest';
import { frameCount, frameTimeline } from './timeline.js';

/** Expands the timeline's "frame × count" answers into the video's frame sequence. */
function play(fps: number, total: number, frames: [string, number][], start?: number): string[] {
  const timeline = frameTimeline<string>(fps, total, start);
  const out: string[] = [];
  const add = (w: { frame: string; count: number } | undefined) => w && out.push(...Array<string>(w.count).fill(w.frame));
  for (const [frame, at] of frames) add(timeline.push(frame, at));
  add(timeline.finish());
  return out;
}

describe('frameTimeline', () => {
  describe('When a single frame arrives (a still page)', () => {
    it('should repeat it for the whole video', () => {
      expect(play(10, 5, [['a', 100]])).toEqual(['a', 'a', 'a', 'a', 'a']);
    });
  });

  describe('When frames arrive irregularly', () => {
    it('should show at each slot the last frame that arrived at or before it', () => {
      // slots at 0, 0.1, 0.2, 0.3, 0.4, 0.5 s after the first frame
      expect(
        play(10, 6, [
          ['a', 50.0],
          ['b', 50.1], // exactly on slot 1
          ['c', 50.13],
          ['d', 50.17], // c never reaches a slot: d replaces it before 0.2
          ['e', 50.41],
        ]),
      ).toEqual(['a', 'b', 'd', 'd', 'd', 'e']);
    });
  });

  describe('When the video starts before the first frame arrives', () => {
    it('should show the first frame from the start, and every later frame at its own instant', () => {
      // slots at 0, 0.1 ... 0.5 s after 50.0; the first frame arrives 0.15 s in
      expect(play(10, 6, [['a', 50.15], ['b', 50.3]], 50.0)).toEqual(['a', 'a', 'a', 'b', 'b', 'b']);
    });
  });

  describe('When frames keep coming after the last slot', () => {
    it('should never write more than the video holds', () => {
      expect(play(10, 3, [['a', 0], ['b', 0.15], ['c', 0.9], ['d', 1.5]])).toEqual(['a', 'a', 'b']);
    });
  });

  describe('When nothing arrived', () => {
    it('should write nothing', () => {
      expect(play(10, 3, [])).toEqual([]);
    });
  });

  describe('frameCount', () => {
    it('should be duration × fps, at least one', () => {
      expect(frameCount(5, 25)).toBe(125);
      expect(frameCount(1.5, 25)).toBe(38);
      expect(frameCount(0.001, 25)).toBe(1);
    });
  });

  describe('When time passes on a still page before the next frame', () => {
    it('should give the slots already past to the current frame, and the same video in the end', () => {
      const timeline = frameTimeline<string>(10, 6);
      expect(timeline.advance(5)).toBeUndefined(); // no frame yet
      expect(timeline.push('a', 10)).toBeUndefined();
      expect(timeline.advance(10.25)).toEqual({ frame: 'a', count: 3 }); // slots at 0, 0.1, 0.2 s
      expect(timeline.advance(10.25)).toBeUndefined();
      expect(timeline.push('b', 10.32)).toEqual({ frame: 'a', count: 1 }); // slot at 0.3 s
      expect(timeline.finish()).toEqual({ frame: 'b', count: 2 });
      expect(timeline.written).toBe(6);
    });
  });
});
