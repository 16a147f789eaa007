import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNatsServer, type RunningNats } from '@app/stack';
import { until } from '@app/testkit';
import { connectNats, type NatsConnection } from './connection.js';
import { DEFAULT_BUS_PROBE, busStatus } from './bus-status.js';

// A real nats-server that stops answering without closing its connections (SIGSTOP: hung, not dead).
let dir: string;
let nats: RunningNats;
let nc: NatsConnection;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bus-status-'));
  nats = await startNatsServer({ storeDir: join(dir, 'nats') });
  nc = await connectNats({ servers: nats.url, name: 'bus-status-test' });
});

afterAll(async () => {
  nats?.process.kill('SIGCONT');
  await nc?.close();
  await nats?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('Bus status with a probe', () => {
  describe('When the NATS server hangs with the connection open, then answers again', () => {
    it('should say the bus is down while it hangs, and up again once it answers', async () => {
      const bus = busStatus(nc, { probe: DEFAULT_BUS_PROBE });
      expect(bus.connected()).toBe(true);
      nats.process.kill('SIGSTOP');
      try {
        await until(() => !bus.connected(), 20_000, 'the bus seen down');
        await expect(bus.check()).rejects.toThrow(/not connected/);
      } finally {
        nats.process.kill('SIGCONT');
      }
      await until(() => bus.connected(), 20_000, 'the bus seen up again');
      await bus.check();
    });
  });
});
