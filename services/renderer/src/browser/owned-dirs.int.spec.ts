import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOwnedDir, ownerOf, sweepDeadOwners } from './owned-dirs.js';

// Folders a renderer owns carry their owner in their name: made in one step (mkdtemp), so a renderer
// killed the instant it made one still leaves a folder the next renderer can judge and remove.
let root: string;
let savedTmp: string | undefined;
beforeEach(() => {
  savedTmp = process.env.TMPDIR;
  root = mkdtempSync(join(tmpdir(), 'owned-dirs-test-'));
  process.env.TMPDIR = root;
});
afterEach(() => {
  process.env.TMPDIR = savedTmp;
  if (savedTmp === undefined) delete process.env.TMPDIR;
  rmSync(root, { recursive: true, force: true });
});

describe('owned folders', () => {
  describe('When this process makes one', () => {
    it('should name this process and its start as the owner, and keep it in a sweep', async () => {
      const dir = await createOwnedDir('renderer-screencast-');
      const entry = dir.slice(root.length + 1);
      expect(ownerOf(entry)).toMatch(new RegExp(`^${process.pid} \\d+$`));
      expect(await sweepDeadOwners()).toEqual([]);
      expect(readdirSync(root)).toEqual([entry]);
    });
  });

  describe('When folders name an owner that is gone, or a pid now run by another process', () => {
    it('should remove those, and leave a live owner’s and a name of another shape', async () => {
      const live = await createOwnedDir('renderer-chromium-');
      const gone = join(root, 'renderer-screencast-999999999.12345-abcdef');
      const reused = join(root, `renderer-chromium-${process.ppid}.1-abcdef`); // a live pid, another start
      const foreign = join(root, 'renderer-screencast-partial');
      for (const dir of [gone, reused, foreign]) mkdirSync(dir);
      expect((await sweepDeadOwners()).sort()).toEqual([gone, reused].sort());
      expect(readdirSync(root).sort()).toEqual([live.slice(root.length + 1), 'renderer-screencast-partial'].sort());
    });
  });
});
