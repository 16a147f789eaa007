import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectNats, ensureTopology, type NatsConnection } from '@app/messaging';
import { startNatsServer } from '@app/stack';

export interface TestBus {
  url: string;
  /** A connection made with the bus, its topology (streams, consumers, buckets) in place. */
  nc: NatsConnection;
  /** Another connection, as another process (replica) would hold. */
  connect(name: string): Promise<NatsConnection>;
  /** Closes every connection, stops the server and removes its store. */
  stop(): Promise<void>;
}

/** A real nats-server (JetStream, in a fresh folder) with the service topology, for integration tests. */
export async function startTestBus(name = 'test'): Promise<TestBus> {
  const dir = mkdtempSync(join(tmpdir(), `bus-${name}-`));
  const nats = await startNatsServer({ storeDir: join(dir, 'nats') });
  const connections: NatsConnection[] = [];
  const connect = async (connectionName: string) => {
    const nc = await connectNats({ servers: nats.url, name: connectionName });
    connections.push(nc);
    return nc;
  };
  const nc = await connect(name);
  await ensureTopology(nc);
  return {
    url: nats.url,
    nc,
    connect,
    async stop() {
      await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
      await nats.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
