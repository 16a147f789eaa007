import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectNats, ensureTopology, type NatsConnection } from '@app/messaging';
import { startLocalNats, type SupervisedNats } from '@app/stack';

export interface TestBus {
  /** Every server's URL, comma-separated. */
  url: string;
  /** The servers (one, or the members of a cluster), supervised: one killed is restarted unless told not to. */
  servers: SupervisedNats[];
  /** A connection made with the bus, its topology (streams, consumers, buckets) in place. */
  nc: NatsConnection;
  /** Another connection, as another process (replica) would hold. */
  connect(name: string): Promise<NatsConnection>;
  /** Closes every connection, stops the server and removes its store. */
  stop(): Promise<void>;
}

/**
 * A real nats-server (JetStream, in a fresh folder) with the service topology, for integration tests; with
 * `clusterSize`, a cluster of that many on loopback, the topology in `replicas` copies (default 1).
 */
export async function startTestBus(name = 'test', opts: { clusterSize?: number; replicas?: number } = {}): Promise<TestBus> {
  const dir = mkdtempSync(join(tmpdir(), `bus-${name}-`));
  const servers = await startLocalNats(join(dir, 'nats'), opts.clusterSize ?? 1, () => undefined);
  const nats = { url: servers.map((s) => s.url).join(','), stop: () => Promise.all(servers.map((s) => s.stop())) };
  const connections: NatsConnection[] = [];
  const connect = async (connectionName: string) => {
    const nc = await connectNats({ servers: nats.url, name: connectionName });
    connections.push(nc);
    return nc;
  };
  const nc = await connect(name);
  await ensureTopology(nc, { replicas: opts.replicas ?? 1 });
  return {
    url: nats.url,
    servers,
    nc,
    connect,
    async stop() {
      await Promise.all(connections.map((c) => c.close().catch(() => undefined)));
      await nats.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
