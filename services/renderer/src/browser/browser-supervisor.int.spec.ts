import { afterEach, describe, expect, it } from 'vitest';
import { BrowserSupervisor } from './browser-supervisor.js';
import { processExists, waitFor } from './testing/processes.js';

// The browser supervisor alone, with real Chromium processes.
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
let supervisor: BrowserSupervisor | undefined;
let running = true;

afterEach(async () => {
  running = false;
  await supervisor?.stop();
  supervisor = undefined;
  running = true;
});

async function supervisorWith(browsers: number, onReady = () => undefined) {
  supervisor = new BrowserSupervisor({ warmContexts: 1, logger: quiet, running: () => running, live: () => running, onReady });
  await supervisor.prepare();
  for (let i = 0; i < browsers; i++) supervisor.add(await supervisor.launch());
  return supervisor;
}

describe('BrowserSupervisor', () => {
  describe('When a browser is launched', () => {
    it('should fill its warm reserve before it takes work, and be the one picked', async () => {
      const s = await supervisorWith(1);
      expect(s.slots).toHaveLength(1);
      expect(s.slots[0]!.reserve.ready).toBe(1);
      expect(s.pick()).toBe(s.slots[0]);
    });
  });

  describe('When a serving browser is killed', () => {
    it('should take it out at once, kill it for good and add a replacement (one restart)', async () => {
      let ready = 0;
      const s = await supervisorWith(1, () => ready++);
      const [first] = s.slots;
      process.kill(first!.managed.pid!, 'SIGKILL');
      await waitFor(() => s.slots.length === 1 && s.slots[0] !== first, 20_000);
      expect(first!.state).toBe('dead');
      expect(processExists(first!.managed.pid!)).toBe(false);
      expect(s.restarts).toBe(1);
      expect(ready).toBe(2);
    });
  });

  describe('When a browser used up its render budget', () => {
    it('should keep it serving until its replacement is up, then drain and close it', async () => {
      const s = await supervisorWith(1);
      const [old] = s.slots;
      s.retire(old!);
      expect(old!.state).toBe('retiring');
      expect(s.pick()).toBe(old); // still serving while the replacement launches
      await waitFor(() => old!.state === 'closing' && s.slots.length === 1, 20_000);
      expect(s.slots[0]).not.toBe(old);
      await old!.managed.exited;
      expect(processExists(old!.managed.pid!)).toBe(false);
    });
  });

  describe('When there are several browsers', () => {
    it('should pick the one with the fewest renders in flight', async () => {
      const s = await supervisorWith(2);
      const [a, b] = s.slots;
      a!.leases.add({ fail: () => undefined });
      expect(s.pick()).toBe(b);
      b!.leases.add({ fail: () => undefined });
      b!.leases.add({ fail: () => undefined });
      expect(s.pick()).toBe(a);
    });
  });
});
