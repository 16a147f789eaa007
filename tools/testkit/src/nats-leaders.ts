import { connectNats, jetstreamManager, type NatsConnection } from '@app/messaging';
import type { SupervisedNats } from '@app/stack';

/** What a server's monitoring endpoint says of the JetStream meta group: /jsz `meta_cluster`. */
interface Jsz {
  meta_cluster?: { leader?: string; cluster_size?: number };
}

/**
 * Who leads what in a NATS cluster the stack started: the JetStream meta leader as a server's monitoring
 * endpoint reports it (/jsz), and a stream's leader as the JetStream API reports it ($JS.API.STREAM.INFO).
 */
export async function natsLeaders(servers: SupervisedNats[]) {
  const nc: NatsConnection = await connectNats({ servers: servers.map((s) => s.url).join(','), name: 'leaders-probe' });
  const serverNamed = (name: string | undefined) => servers.find((s) => s.name === name);
  return {
    /** The meta leader every running server agrees on, once they do (undefined during an election). */
    async metaLeader(): Promise<SupervisedNats | undefined> {
      const names = await Promise.all(
        servers
          .filter((s) => s.process && s.monitorUrl)
          .map(async (s) => {
            const res = await fetch(`${s.monitorUrl}/jsz`, { signal: AbortSignal.timeout(2_000) }).catch(() => undefined);
            return res?.ok ? ((await res.json()) as Jsz).meta_cluster?.leader : undefined;
          }),
      );
      return names.length > 0 && names.every((n) => n && n === names[0]) ? serverNamed(names[0]) : undefined;
    },
    /** The stream's leader (undefined during an election), and how many of its peers are current. */
    async stream(name: string): Promise<{ leader: SupervisedNats | undefined; currentPeers: number }> {
      const info = await (await jetstreamManager(nc, { timeout: 2_000 })).streams.info(name).catch(() => undefined);
      const current = new Set([info?.cluster?.leader, ...(info?.cluster?.replicas ?? []).filter((r) => r.current).map((r) => r.name)]);
      current.delete(undefined);
      return { leader: serverNamed(info?.cluster?.leader), currentPeers: current.size };
    },
    close: () => nc.close(),
  };
}
