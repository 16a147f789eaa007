import type { Logger } from '@app/logging';
import { shutdownTelemetry } from '@app/telemetry';

export interface App {
  start(): Promise<void>;
  /** Stops taking work, drains what is in flight, closes connections in reverse order. */
  stop(): Promise<void>;
}

/**
 * Process entry helper used by every service's main.ts: starts the app, logs where it listens, and on
 * SIGTERM/SIGINT drains it within `graceMs` before exiting. A second signal exits at once.
 */
export async function runService(opts: { name: string; logger: Logger; create: () => Promise<App>; graceMs?: number }): Promise<void> {
  const { logger } = opts;
  const graceMs = opts.graceMs ?? 25_000;
  let app: App;
  try {
    app = await opts.create();
    await app.start();
  } catch (err) {
    logger.fatal({ err }, `${opts.name} failed to start`);
    await shutdownTelemetry();
    process.exit(1);
  }
  logger.info(`${opts.name} started`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn(`${signal} again: exiting now`);
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, `${opts.name} draining`);
    const timer = setTimeout(() => {
      logger.error(`${opts.name} did not drain within ${graceMs} ms: exiting`);
      process.exit(1);
    }, graceMs);
    timer.unref();
    try {
      await app.stop();
      logger.info(`${opts.name} stopped`);
      await shutdownTelemetry();
      process.exit(0);
    } catch (err) {
      logger.error({ err }, `${opts.name} failed to stop cleanly`);
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
}
