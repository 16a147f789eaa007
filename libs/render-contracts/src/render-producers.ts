/** Who produced a render's finished event (`RenderFinished.producer`). */
export const RENDER_PRODUCERS = {
  /** A renderer rendered it; `renderer_id` names the replica. */
  renderer: 'renderer',
  /** The edge answered an asynchronous render from its render cache. */
  edgeCache: 'edge-cache',
  /** The edge's watchdog failed an asynchronous render whose renderer is gone. */
  edgeWatchdog: 'edge-watchdog',
} as const;

export type RenderProducer = (typeof RENDER_PRODUCERS)[keyof typeof RENDER_PRODUCERS];
