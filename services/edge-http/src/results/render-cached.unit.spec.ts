import { describe, expect, it, vi } from 'vitest';
import { errors } from '@app/errors';
import { validateRenderParams } from '@app/render-params';
import { fakeFiles, fakeIndex, storedFile } from './testing/fakes.js';
import { renderCache } from './render-cache.js';
import { renderCached } from './render-cached.js';
import { memoizedCacheIndex } from './adapters/memoized-cache-index.js';
import { memoizedFiles } from './adapters/memoized-files.js';
import type { RenderOutcome, RenderSync } from '../application/render-sync.js';

const NOW = Date.now();
const BODY = new Uint8Array([1, 2, 3]);

/**
 * A renderer that holds every render until the test lets it finish, and writes the kept file where
 * the job placed it (as the real renderer does).
 */
function heldRenderer(files: ReturnType<typeof fakeFiles>) {
  let finish!: (ok: boolean) => void;
  const started = vi.fn();
  const gate = new Promise<boolean>((resolve) => (finish = resolve));
  const render = vi.fn<RenderSync>(async (input) => {
    started();
    if (!(await gate)) throw errors.renderTimeout(30);
    const objectName = input.placement!.object_name;
    const expiresUnixMs = NOW + input.placement!.ttl_ms;
    files.files.set(objectName, { file: storedFile({ objectName, expiresUnixMs }), body: BODY, mtimeMs: NOW });
    const outcome: RenderOutcome = { body: BODY, contentType: 'image/png', extension: 'png', headers: {}, kept: { objectName, expiresUnixMs } };
    return outcome;
  });
  return { render, started, finish };
}

/** `edges` edges sharing one cache index and one file store, as replicas share the buckets. */
function setup(edges = 1, clock = { now: () => new Date() }) {
  const index = fakeIndex();
  const files = fakeFiles();
  const renderer = heldRenderer(files);
  const cache = renderCache({ index, files });
  const replicas = Array.from({ length: edges }, () => renderCached({ renderSync: renderer.render, cache, clock, waitMarginMs: 1_000, pollMs: 5 }));
  return { index, files, renderer, replicas };
}

const input = (beforeRender = vi.fn(async () => undefined)) => ({
  accountId: 'acc_1',
  operation: 'screenshot' as const,
  params: validateRenderParams('screenshot', { url: 'https://example.com/', cache: true, format: 'png' }).params,
  beforeRender,
});

describe('renderCached', () => {
  describe('When a hit is held in this edge\'s memory', () => {
    it('should answer it at once (known) to its own account only, and nothing before it is held', async () => {
      const files = fakeFiles();
      const renderer = heldRenderer(files);
      const cache = renderCache({ index: memoizedCacheIndex(fakeIndex(), { maxEntries: 10 }), files: memoizedFiles(files, { maxBytes: 1_000 }) });
      const cached = renderCached({ renderSync: renderer.render, cache, clock: { now: () => new Date() }, waitMarginMs: 1_000 });
      expect(cached.known(input())).toBeUndefined();
      renderer.finish(true);
      expect((await cached(input())).cache).toBe('MISS');
      expect((await cached(input())).cache).toBe('HIT');
      expect(cached.known(input())).toMatchObject({ cache: 'HIT', body: BODY, contentType: 'image/png' });
      expect(cached.known({ ...input(), accountId: 'acc_2' })).toBeUndefined();
      expect(renderer.render).toHaveBeenCalledTimes(1);
    });
  });

  describe('When identical requests arrive at once on one edge', () => {
    it('should render once, reserve quota once, and answer the others from that render as hits', async () => {
      const { replicas, renderer } = setup();
      const reservations = Array.from({ length: 5 }, () => vi.fn(async () => undefined));
      const answers = reservations.map((reserve) => replicas[0]!(input(reserve)));
      await vi.waitFor(() => expect(renderer.started).toHaveBeenCalledTimes(1));
      renderer.finish(true);
      const outcomes = await Promise.all(answers);
      expect(renderer.render).toHaveBeenCalledTimes(1);
      expect(reservations.filter((r) => r.mock.calls.length > 0)).toHaveLength(1);
      expect(outcomes.map((o) => o.cache).sort()).toEqual(['HIT', 'HIT', 'HIT', 'HIT', 'MISS']);
      for (const o of outcomes) expect(o.body).toEqual(BODY);
    });
  });

  describe('When identical requests arrive at once on two edges', () => {
    it('should let the edge that claimed the key render, and the other wait for its entry', async () => {
      const { replicas, renderer, index } = setup(2);
      const first = input();
      const second = input();
      const a = replicas[0]!(first);
      await vi.waitFor(() => expect(renderer.started).toHaveBeenCalledTimes(1));
      const b = replicas[1]!(second);
      await new Promise((r) => setTimeout(r, 30));
      expect(renderer.render).toHaveBeenCalledTimes(1);
      renderer.finish(true);
      const [outA, outB] = await Promise.all([a, b]);
      expect([outA.cache, outB.cache]).toEqual(['MISS', 'HIT']);
      expect(outB.body).toEqual(outA.body);
      expect(second.beforeRender).not.toHaveBeenCalled();
      expect(index.claims.size).toBe(0);
      expect(index.entries.size).toBe(1);
    });
  });

  describe('When the claimed render is a screencast, longer than its timeout', () => {
    it('should keep the other edge waiting for the recording, not give up after the timeout', async () => {
      let skewMs = 0;
      const { replicas, renderer } = setup(2, { now: () => new Date(Date.now() + skewMs) });
      const cast = () => ({
        ...input(),
        operation: 'screencast' as const,
        params: validateRenderParams('screencast', { url: 'https://example.com/', cache: true, timeout: 1, duration: 5 }).params,
      });
      const a = replicas[0]!(cast());
      await vi.waitFor(() => expect(renderer.started).toHaveBeenCalledTimes(1));
      const b = replicas[1]!(cast());
      skewMs = 3_000; // past timeout + margin, well within timeout + duration
      await new Promise((r) => setTimeout(r, 30));
      renderer.finish(true);
      expect((await Promise.all([a, b])).map((o) => o.cache)).toEqual(['MISS', 'HIT']);
      expect(renderer.render).toHaveBeenCalledTimes(1);
    });
  });

  describe('When the render that holds the claim fails', () => {
    it('should drop the claim, so a request still waiting on another edge renders it itself', async () => {
      const { replicas, renderer, index } = setup(2);
      const a = replicas[0]!(input());
      await vi.waitFor(() => expect(renderer.started).toHaveBeenCalledTimes(1));
      const b = replicas[1]!(input());
      // Every render of this renderer fails from now on: the waiting edge's own render fails too.
      renderer.finish(false);
      await expect(a).rejects.toMatchObject({ code: 'render_timeout' });
      await vi.waitFor(() => expect(renderer.render).toHaveBeenCalledTimes(2));
      await expect(b).rejects.toMatchObject({ code: 'render_timeout' });
      expect(index.claims.size).toBe(0);
    });
  });

  describe('When another account asks for the same render at the same time', () => {
    it('should render it separately (keys never cross accounts)', async () => {
      const { replicas, renderer } = setup();
      const a = replicas[0]!(input());
      const b = replicas[0]!({ ...input(), accountId: 'acc_2' });
      await vi.waitFor(() => expect(renderer.started).toHaveBeenCalledTimes(2));
      renderer.finish(true);
      expect((await Promise.all([a, b])).map((o) => o.cache)).toEqual(['MISS', 'MISS']);
    });
  });
});
