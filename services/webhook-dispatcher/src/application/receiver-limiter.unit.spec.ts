import { describe, expect, it } from 'vitest';
import { receiverLimiter } from './receiver-limiter.js';

const FAST = 'https://fast.example';
const SLOW = 'https://slow.example';

describe('receiverLimiter', () => {
  describe('When a receiver has as many attempts in flight as its cap', () => {
    it('should refuse one more until one is released', () => {
      const limiter = receiverLimiter(2);
      expect([limiter.tryAcquire(FAST), limiter.tryAcquire(FAST), limiter.tryAcquire(FAST)]).toEqual([true, true, false]);
      expect(limiter.tryAcquire(SLOW)).toBe(true);
      limiter.release(FAST, 5);
      expect(limiter.tryAcquire(FAST)).toBe(true);
    });
  });

  describe('When a busy receiver has no attempt on record yet', () => {
    it("should send its message back after the caller's bound", () => {
      expect(receiverLimiter(1).busyDelayMs(FAST, 1_000)).toBe(1_000);
    });
  });

  describe('When a busy receiver answers in milliseconds', () => {
    it('should send its message back after 50 ms, not the whole bound', () => {
      const limiter = receiverLimiter(1);
      for (const ms of [4, 6, 5]) {
        limiter.tryAcquire(FAST);
        limiter.release(FAST, ms);
      }
      expect(limiter.busyDelayMs(FAST, 1_000)).toBe(50);
    });
  });

  describe('When a busy receiver takes a while to answer', () => {
    it('should send its message back after about two of its recent attempt times, at most the bound', () => {
      const limiter = receiverLimiter(1);
      limiter.tryAcquire(SLOW);
      limiter.release(SLOW, 200);
      expect(limiter.busyDelayMs(SLOW, 1_000)).toBe(400);
      for (let i = 0; i < 20; i++) {
        limiter.tryAcquire(SLOW);
        limiter.release(SLOW, 5_000);
      }
      expect(limiter.busyDelayMs(SLOW, 1_000)).toBe(1_000);
    });
  });

  describe('When an attempt ends without a time (it never reached the receiver)', () => {
    it('should free its slot and leave the average as it was', () => {
      const limiter = receiverLimiter(1);
      limiter.tryAcquire(FAST);
      limiter.release(FAST, 10);
      limiter.tryAcquire(FAST);
      limiter.release(FAST);
      expect(limiter.inFlight(FAST)).toBe(0);
      expect(limiter.busyDelayMs(FAST, 1_000)).toBe(50);
    });
  });
});
