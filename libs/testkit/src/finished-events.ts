import { connect } from '@nats-io/transport-node';
import { RenderFinished } from '@app/proto/render';

/** Records every RenderFinished event published on NATS while it runs. */
export async function recordFinishedRenders(natsUrl: string) {
  const nc = await connect({ servers: natsUrl });
  const events: RenderFinished[] = [];
  nc.subscribe('renderer.render.finished.>', { callback: (_err, msg) => void events.push(RenderFinished.decode(msg.data)) });
  await nc.flush();
  return { events, close: () => nc.close() };
}
