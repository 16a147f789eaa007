import { connect } from '@nats-io/transport-node';
import { SUBJECTS } from '@app/messaging';
import { RenderFinished } from '@app/proto/render';

/** The events that conclude a render: the renderer's `finished`, the edge's `cache-hit` and `abandoned`. */
const CONCLUSIONS: ReadonlySet<string> = new Set(['finished', 'cache-hit', 'abandoned']);

/**
 * Records every render's conclusion (a RenderFinished payload) published on NATS while it runs: stored
 * render events, and the outcomes of results their callers took from the renderer's hand-over (told, not stored).
 */
export async function recordFinishedRenders(natsUrl: string) {
  const nc = await connect({ servers: natsUrl.split(',') });
  const events: RenderFinished[] = [];
  nc.subscribe(SUBJECTS.renderEventsAll, {
    callback: (_err, msg) => {
      if (CONCLUSIONS.has(SUBJECTS.renderEventKindOf(msg.subject))) events.push(RenderFinished.decode(msg.data));
    },
  });
  nc.subscribe(SUBJECTS.renderTakenAll, { callback: (_err, msg) => void events.push(RenderFinished.decode(msg.data)) });
  await nc.flush();
  return { events, close: () => nc.close() };
}
