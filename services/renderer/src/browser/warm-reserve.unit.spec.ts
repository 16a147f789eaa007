import { describe, expect, it, vi } from 'vitest';
import type { IsolatedPage } from './isolated-page.js';
import { WarmReserve } from './warm-reserve.js';

/** Contexts that open when `open` is resolved by the test, and say whether they were closed. */
function contexts() {
  let next = 0;
  const pending: Array<(p: IsolatedPage) => void> = [];
  const closed: number[] = [];
  const make = (id: number, pageClosed = false) => ({ id, page: { isClosed: () => pageClosed } }) as unknown as IsolatedPage & { id: number };
  return {
    closed,
    pending,
    make,
    open: vi.fn(() => new Promise<IsolatedPage>((resolve) => pending.push(resolve))),
    openOne: () => pending.shift()!(make(++next)),
    close: (p: IsolatedPage) => void closed.push((p as unknown as { id: number }).id),
  };
}
const flush = () => new Promise((r) => setImmediate(r));

/** A reserve of two, filled with contexts 1 and 2. */
async function filledWithTwo(c: ReturnType<typeof contexts>): Promise<WarmReserve> {
  const reserve = new WarmReserve({ size: 2, open: c.open, close: c.close, wanted: () => true, onError: () => undefined });
  const filling = reserve.fill();
  c.openOne();
  await flush();
  c.openOne();
  await filling;
  return reserve;
}

describe('WarmReserve', () => {
  describe('When filled, then taken from', () => {
    it('should hand out ready contexts and refill one at a time once it ran dry', async () => {
      const c = contexts();
      const reserve = await filledWithTwo(c);
      expect(reserve.ready).toBe(2);
      expect(reserve.take()).toBeDefined();
      expect(c.open).toHaveBeenCalledTimes(2); // one left: not refilled during the render
      expect(reserve.take()).toBeDefined();
      expect(c.open).toHaveBeenCalledTimes(3); // ran dry: one opens now, and only one at a time
      reserve.refill();
      expect(c.open).toHaveBeenCalledTimes(3);
      c.openOne();
      await flush();
      expect(c.open).toHaveBeenCalledTimes(4);
      c.openOne();
      await flush();
      expect(reserve.ready).toBe(2);
      expect(c.open).toHaveBeenCalledTimes(4);
    });
  });

  describe('When a ready context was closed while it waited', () => {
    it('should throw it away and never hand it out', async () => {
      const c = contexts();
      const alive = c.make(8);
      const dead = c.make(7, true);
      // The closed one is the newest: it would be handed out first.
      const reserve = new WarmReserve({ size: 2, open: vi.fn().mockResolvedValueOnce(alive).mockResolvedValueOnce(dead), close: c.close, wanted: () => false, onError: () => undefined });
      await reserve.fill();
      expect(reserve.take()).toBe(alive);
      expect(c.closed).toEqual([7]);
      expect(reserve.take()).toBeUndefined();
    });
  });

  describe('When a context opens after its browser stopped taking work', () => {
    it('should close it instead of keeping it', async () => {
      const c = contexts();
      let wanted = true;
      const reserve = new WarmReserve({ size: 1, open: c.open, close: c.close, wanted: () => wanted, onError: () => undefined });
      reserve.refill();
      wanted = false;
      c.openOne();
      await flush();
      expect(reserve.ready).toBe(0);
      expect(c.closed).toEqual([1]);
    });
  });

  describe('When opening a context fails', () => {
    it('should report it and try again on the next refill', async () => {
      const errors: unknown[] = [];
      const open = vi.fn().mockRejectedValueOnce(new Error('browser busy')).mockResolvedValue({ page: { isClosed: () => false } });
      const reserve = new WarmReserve({ size: 1, open, close: () => undefined, wanted: () => true, onError: (e) => errors.push(e) });
      reserve.refill();
      await flush();
      expect(errors).toHaveLength(1);
      reserve.refill();
      await flush();
      expect(reserve.ready).toBe(1);
    });
  });

  describe('When its browser retires or is gone', () => {
    it('should close every ready context when retiring, and only forget them when gone', async () => {
      const c = contexts();
      const reserve = await filledWithTwo(c);
      reserve.closeAll();
      expect(c.closed).toEqual([1, 2]);
      expect(reserve.ready).toBe(0);

      const gone = new WarmReserve({ size: 1, open: async () => c.make(9), close: c.close, wanted: () => true, onError: () => undefined });
      await gone.fill();
      gone.forget();
      expect(gone.ready).toBe(0);
      expect(c.closed).toEqual([1, 2]);
    });
  });
});
