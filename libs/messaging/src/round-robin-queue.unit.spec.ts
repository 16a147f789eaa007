import { describe, expect, it } from 'vitest';
import { RoundRobinQueue } from './round-robin-queue.js';

const takeAll = <T>(q: RoundRobinQueue<T>) => {
  const out: T[] = [];
  for (let item = q.shift(); item !== undefined; item = q.shift()) out.push(item);
  return out;
};

describe('RoundRobinQueue', () => {
  describe('When one key has many items waiting before another key comes', () => {
    it('should give each key one turn in each round, oldest item of each first', () => {
      const q = new RoundRobinQueue<string>();
      for (const item of ['a1', 'a2', 'a3', 'a4']) q.push('a', item);
      q.push('b', 'b1');
      q.push('c', 'c1');
      q.push('b', 'b2');
      expect(q.size).toBe(7);
      expect(takeAll(q)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
      expect(q.size).toBe(0);
    });
  });

  describe('When a key was just served and another key comes', () => {
    it('should serve the newcomer before the key served last', () => {
      const q = new RoundRobinQueue<string>();
      q.push('a', 'a1');
      expect(q.shift()).toBe('a1');
      q.push('a', 'a2');
      q.push('b', 'b1');
      expect(q.shift()).toBe('b1');
      expect(q.shift()).toBe('a2');
    });
  });

  describe('When keys have items running', () => {
    it('should serve the key with the fewest running first, the one served least recently among equals', () => {
      const q = new RoundRobinQueue<string>();
      const running = new Map([['a', 3], ['b', 1], ['c', 1]]);
      q.push('a', 'a1');
      q.push('b', 'b1');
      q.push('c', 'c1');
      q.push('c', 'c2');
      const runningOf = (key: string) => running.get(key) ?? 0;
      expect(q.shift(runningOf)).toBe('b1');
      running.set('b', 2);
      expect(q.shift(runningOf)).toBe('c1');
      running.set('c', 2);
      expect(q.shift(runningOf)).toBe('c2');
      expect(q.shift(runningOf)).toBe('a1');
    });
  });

  describe('When the queue is drained', () => {
    it('should hand back every item and be empty', () => {
      const q = new RoundRobinQueue<number>();
      q.push('a', 1);
      q.push('b', 2);
      q.push('a', 3);
      expect(q.drain().sort()).toEqual([1, 2, 3]);
      expect(q.size).toBe(0);
      expect(q.shift()).toBeUndefined();
    });
  });
});
