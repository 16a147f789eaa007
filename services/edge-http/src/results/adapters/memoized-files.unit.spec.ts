import { describe, expect, it, vi } from 'vitest';
import type { ResultFiles, StoredFile } from '../ports.js';
import { memoizedFiles } from './memoized-files.js';

const file = (objectName: string): StoredFile => ({
  objectName,
  accountId: 'acc',
  expiresUnixMs: 1_000,
  contentType: 'image/png',
  extension: 'png',
  headers: {},
  kind: 'file',
  size: 4,
});

function fakeFiles(): ResultFiles {
  return {
    info: vi.fn(async (name: string) => (name.startsWith('missing') ? undefined : file(name))),
    read: vi.fn(async (name: string) => (name.startsWith('missing') ? undefined : new Uint8Array(4).fill(name.length))),
    stream: vi.fn(),
    list: vi.fn(),
    remove: vi.fn(async () => undefined),
  };
}

describe('memoizedFiles', () => {
  describe('When a file is asked for without a call (known)', () => {
    it('should answer only once both its metadata and its bytes are held', async () => {
      const files = memoizedFiles(fakeFiles(), { maxBytes: 100 });
      expect(files.known!('a')).toBeUndefined();
      await files.info('a');
      expect(files.known!('a')).toBeUndefined();
      await files.read('a');
      expect(files.known!('a')).toEqual({ file: file('a'), body: new Uint8Array(4).fill(1) });
      await files.remove('a');
      expect(files.known!('a')).toBeUndefined();
    });
  });

  describe('When a file is read twice', () => {
    it('should fetch its metadata and bytes once', async () => {
      const inner = fakeFiles();
      const files = memoizedFiles(inner, { maxBytes: 100 });
      expect(await files.read('a')).toEqual(await files.read('a'));
      await files.info('a');
      await files.info('a');
      expect(inner.read).toHaveBeenCalledTimes(1);
      expect(inner.info).toHaveBeenCalledTimes(1);
    });
  });

  describe('When a file does not exist', () => {
    it('should ask again next time', async () => {
      const inner = fakeFiles();
      const files = memoizedFiles(inner, { maxBytes: 100 });
      expect(await files.info('missing')).toBeUndefined();
      expect(await files.info('missing')).toBeUndefined();
      expect(inner.info).toHaveBeenCalledTimes(2);
    });
  });

  describe('When the bytes exceed the bound', () => {
    it('should drop the least recently used file first', async () => {
      const inner = fakeFiles();
      const files = memoizedFiles(inner, { maxBytes: 8 });
      await files.read('a');
      await files.read('b');
      await files.read('a');
      await files.read('c');
      await files.read('a');
      await files.read('b');
      expect(vi.mocked(inner.read).mock.calls.map((c) => c[0])).toEqual(['a', 'b', 'c', 'b']);
    });
  });

  describe('When a file is removed', () => {
    it('should forget it', async () => {
      const inner = fakeFiles();
      const files = memoizedFiles(inner, { maxBytes: 100 });
      await files.read('a');
      await files.remove('a');
      await files.read('a');
      expect(inner.read).toHaveBeenCalledTimes(2);
    });
  });
});
