import type { JetStreamManager, StreamConfig } from '@nats-io/jetstream';
import { isNotFound } from './bus-errors.js';
import { pollUntil } from './retry-until.js';

export type StreamDefinition = Partial<StreamConfig> & { name: string };

/**
 * Creates the stream, or brings an existing one to its definition (its replica count included: the servers
 * copy it to the new peers).
 *
 * A stream given more copies is waited for until every copy is current: a consumer led from a server whose
 * copy is still empty starts at the stream's first message whatever start it was given (nats-server 2.9
 * takes an empty stream's first sequence as 1), and so delivers again what was acknowledged before.
 */
export async function ensureStream(jsm: JetStreamManager, stream: StreamDefinition): Promise<void> {
  const info = await jsm.streams.info(stream.name).catch((err: unknown) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
  if (info && info.config.retention !== stream.retention) {
    // A stream's retention cannot change in place. An empty stream of an older layout is replaced; one
    // still holding messages keeps its retention (deleting it would lose them) until a start finds it
    // empty, which an interest or work-queue stream becomes once its consumers caught up.
    if (info.state.messages > 0) {
      const kept = { ...stream, retention: info.config.retention };
      await jsm.streams.update(stream.name, kept);
      await everyCopyCurrent(jsm, stream, info.config.num_replicas);
      return;
    }
    await jsm.streams.delete(stream.name);
  } else if (info) {
    await jsm.streams.update(stream.name, stream);
    await everyCopyCurrent(jsm, stream, info.config.num_replicas);
    return;
  }
  await jsm.streams.add(stream).catch(async (addErr: unknown) => {
    // Another replica created it between our info and add.
    await jsm.streams.info(stream.name).catch(() => {
      throw addErr;
    });
  });
}

/** Once a stream that had `before` copies has more, until its leader reports every other copy current (30 s at most). */
async function everyCopyCurrent(jsm: JetStreamManager, stream: StreamDefinition, before: number): Promise<void> {
  const copies = stream.num_replicas ?? 1;
  if (copies <= before) return;
  const current = async () => {
    const { cluster } = await jsm.streams.info(stream.name).catch(() => ({ cluster: undefined }));
    return !!cluster?.leader && (cluster.replicas ?? []).filter((r) => r.current).length === copies - 1;
  };
  await pollUntil(current, { timeoutMs: 30_000, intervalMs: 200, failure: new Error(`stream ${stream.name}: its ${copies} copies were not all current after 30 s`) });
}
