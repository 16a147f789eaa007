import { describe, expect, it, vi } from 'vitest';
import { fakeIndex } from '../testing/fakes.js';
import { memoizedCacheIndex } from './memoized-cache-index.js';

const entry = (objectName: string, expiresUnixMs: number) => ({ accountId: 'acc_1', objectName, expiresUnixMs });

function setup(maxEntries = 10) {
  let nowMs = 1_000;
  const inner = fakeIndex();
  const get = vi.spyOn(inner, 'get');
  const index = memoizedCacheIndex(inner, { maxEntries, now: () => nowMs });
  return { inner, get, index, advanceTo: (ms: number) => (nowMs = ms) };
}

describe('memoizedCacheIndex', () => {
  describe('When an entry is asked for without a call (known)', () => {
    it('should answer only a live entry this edge has read or written', async () => {
      const { inner, index, advanceTo } = setup();
      inner.entries.set('k', entry('file-a', 5_000));
      expect(index.known!('k')).toBeUndefined();
      await index.get('k');
      expect(index.known!('k')).toEqual(entry('file-a', 5_000));
      await index.put('w', entry('file-w', 5_000));
      expect(index.known!('w')).toEqual(entry('file-w', 5_000));
      advanceTo(5_000);
      expect(index.known!('k')).toBeUndefined();
    });
  });

  describe('When a live entry is read twice', () => {
    it('should ask the bucket once', async () => {
      const { inner, get, index } = setup();
      inner.entries.set('k', entry('file-a', 5_000));
      expect(await index.get('k')).toEqual(entry('file-a', 5_000));
      expect(await index.get('k')).toEqual(entry('file-a', 5_000));
      expect(get).toHaveBeenCalledTimes(1);
    });
  });

  describe('When this edge wrote the entry', () => {
    it('should answer from memory', async () => {
      const { get, index } = setup();
      await index.put('k', entry('file-a', 5_000));
      expect(await index.get('k')).toEqual(entry('file-a', 5_000));
      expect(get).not.toHaveBeenCalled();
    });
  });

  describe('When the key is absent', () => {
    it('should ask again next time (another edge may have written it)', async () => {
      const { inner, get, index } = setup();
      expect(await index.get('k')).toBeUndefined();
      inner.entries.set('k', entry('file-b', 5_000));
      expect(await index.get('k')).toEqual(entry('file-b', 5_000));
      expect(get).toHaveBeenCalledTimes(2);
    });
  });

  describe('When the remembered entry has expired', () => {
    it('should forget it and read the bucket', async () => {
      const { inner, get, index, advanceTo } = setup();
      await index.put('k', entry('file-a', 5_000));
      advanceTo(5_000);
      inner.entries.set('k', entry('file-c', 9_000));
      expect(await index.get('k')).toEqual(entry('file-c', 9_000));
      expect(get).toHaveBeenCalledTimes(1);
    });
  });

  describe('When an entry is removed', () => {
    it('should not answer it from memory', async () => {
      const { index } = setup();
      await index.put('k', entry('file-a', 5_000));
      await index.remove('k');
      expect(await index.get('k')).toBeUndefined();
    });
  });

  describe('When more entries are read than it keeps', () => {
    it('should drop the least recently used', async () => {
      const { inner, get, index } = setup(2);
      for (const k of ['a', 'b', 'c']) inner.entries.set(k, entry(`file-${k}`, 5_000));
      await index.get('a');
      await index.get('b');
      await index.get('a');
      await index.get('c');
      get.mockClear();
      await index.get('a');
      await index.get('b');
      expect(get.mock.calls.map((c) => c[0])).toEqual(['b']);
    });
  });
});
