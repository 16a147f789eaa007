import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBus, until, type TestBus } from '@app/testkit';
import { CAPACITY_STALE_MS, startCapacityHeartbeat, watchFleetCapacity, type NatsConnection } from './index.js';

// Two renderers' heartbeats, each on its own connection, read by a watcher on a third (nats-server 2.9).
let bus: TestBus;
let renderers: NatsConnection[];

beforeAll(async () => {
  bus = await startTestBus('fleet-capacity');
  renderers = await Promise.all([bus.connect('renderer-a'), bus.connect('renderer-b')]);
});

afterAll(() => bus?.stop());

describe('The fleet capacity', () => {
  describe('When two renderers report 2 and 3 slots, then one stops', () => {
    it('should add up the live renderers, and drop the one that stopped', async () => {
      const watcher = await watchFleetCapacity(await bus.connect('auth-quota'));
      expect(watcher.capacity()).toBeUndefined();
      const a = await startCapacityHeartbeat(renderers[0]!, { rendererId: 'host-a-1', slots: 2 });
      const b = await startCapacityHeartbeat(renderers[1]!, { rendererId: 'host.b:2', slots: 3 });
      await until(() => watcher.capacity() === 5, 5_000, 'both renderers counted');
      await b.stop();
      await until(() => watcher.capacity() === 2, 5_000, 'the stopped renderer dropped');
      await a.stop();
      await until(() => watcher.capacity() === undefined, 5_000, 'no renderer left');
      watcher.stop();
    });
  });

  describe('When a renderer stops reporting without removing its key (killed)', () => {
    it('should stop counting it once its last report is stale', async () => {
      let nowMs = Date.now();
      const watcher = await watchFleetCapacity(await bus.connect('auth-quota-2'), { now: () => nowMs });
      const killed = await startCapacityHeartbeat(renderers[0]!, { rendererId: 'killed', slots: 4 });
      await until(() => watcher.capacity() === 4, 5_000, 'the renderer counted');
      nowMs += CAPACITY_STALE_MS + 1_000;
      expect(watcher.capacity()).toBeUndefined();
      await killed.stop();
      watcher.stop();
    });
  });
});
