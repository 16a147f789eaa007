import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STREAMS, SUBJECTS, connectNats, ensureTopology, jetstream, jetstreamManager, type NatsConnection } from '@app/messaging';
import { openRenderJobPublisher } from '@app/render-contracts';
import { RenderJob } from '@app/proto/render';
import { startNatsServer } from '@app/stack';
import { natsRenderJobs } from '../adapters/nats-render-jobs.js';
import type { RenderJobs } from '../application/ports.js';

/** A real nats-server with JetStream on a temporary store, with the system's topology. */
export async function startTestNats() {
  const dir = mkdtempSync(join(tmpdir(), 'scheduler-nats-'));
  const server = await startNatsServer({ storeDir: dir });
  const nc = await connectNats({ servers: server.url, name: 'scheduler-test' });
  await ensureTopology(nc);
  return {
    url: server.url,
    nc,
    async stop() {
      await nc.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface StoredMessage {
  subject: string;
  msgId: string | undefined;
  data: Uint8Array;
}

/** Every message a stream holds now, in order, with its Nats-Msg-Id (read by sequence: work queues allow no other consumer). */
export async function streamMessages(nc: NatsConnection, stream: string): Promise<StoredMessage[]> {
  const jsm = await jetstreamManager(nc);
  const { state } = await jsm.streams.info(stream);
  const out: StoredMessage[] = [];
  for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
    const m = await jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (m) out.push({ subject: m.subject, msgId: m.header?.get('Nats-Msg-Id') || undefined, data: m.data });
  }
  return out;
}

/** Every render job RENDER_JOBS holds now, decoded. */
export async function renderJobsIn(nc: NatsConnection): Promise<RenderJob[]> {
  return (await streamMessages(nc, STREAMS.RENDER_JOBS.name)).map((m) => RenderJob.decode(m.data));
}

/** Reservations announced on RENDER_EVENTS as ended without a job (auth-quota releases them), by id. */
export async function releasedReservations(nc: NatsConnection): Promise<string[]> {
  return (await streamMessages(nc, STREAMS.RENDER_EVENTS.name))
    .filter((m) => SUBJECTS.renderEventOriginOf(m.subject) === 'nojob')
    .map((m) => m.subject.slice(SUBJECTS.renderEvent('nojob', 'ended', '').length));
}

/** The scheduler's own RENDER_JOBS adapter on `nc` (for a test that wraps it to make it fail). */
export async function realRenderJobs(nc: NatsConnection): Promise<RenderJobs> {
  const js = jetstream(nc);
  return natsRenderJobs(js, await openRenderJobPublisher(nc, js));
}
