import type { Logger } from '@app/logging';
import type { DueRunTick, TickResult } from '../../application/request-due-runs.js';

export interface Ticker {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Runs a tick every `intervalMs` (a tick never overlaps the previous one), so a due occurrence is claimed
 * well within a second. `onStarted` follows a tick that started runs (the relay publishes them at once).
 */
export function dueRunsTicker(deps: { tick: DueRunTick; intervalMs: number; logger: Logger; onStarted?: (r: TickResult) => void }): Ticker {
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let current: Promise<void> = Promise.resolve();

  const loop = () => {
    current = deps
      .tick()
      .then((r) => {
        if (r.started > 0) deps.onStarted?.(r);
      })
      .catch((err: unknown) => deps.logger.error({ err }, 'scheduler tick failed'))
      .finally(() => {
        if (running) timer = setTimeout(loop, deps.intervalMs);
      });
  };

  return {
    start() {
      if (running) return;
      running = true;
      timer = setTimeout(loop, 0);
    },
    async stop() {
      running = false;
      clearTimeout(timer);
      await current;
    },
  };
}
