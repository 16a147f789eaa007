import type { ChildProcess } from 'node:child_process';
import { startServiceProcess, type LogMode, type ServiceProcess } from './service-process.js';

/** Waits before restarting a service that exited, by how many times in a row it did. */
export const RESTART_BACKOFF_MS = [250, 500, 1_000, 2_000, 5_000];
/** A service that stayed up this long is healthy again: its next crash restarts it at once. */
const STABLE_AFTER_MS = 30_000;

export interface SupervisedService {
  name: string;
  /** The current process of the service. */
  readonly process: ChildProcess;
  /** Exit of the current process. */
  readonly exited: Promise<number | null>;
  /** How many times the service was restarted after an unexpected exit. */
  readonly restarts: number;
  /** Deliberate stop (SIGTERM, drain; SIGKILL after `graceMs`): not restarted. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once, as a crash: restarted like any unexpected exit unless `restart: false`. */
  kill(opts?: { restart?: boolean }): Promise<void>;
  /** Starts it again after stop() or kill({ restart: false }). */
  start(): void;
}

/**
 * Runs one service under supervision: an exit nobody asked for is logged with its code or signal and the
 * service is started again with the same environment after a backoff (250 ms doubling to 5 s, reset once
 * it stayed up 30 s). stop() is the only way to end it for good.
 */
export function superviseService(opts: {
  name: string;
  entry: string;
  env: NodeJS.ProcessEnv;
  logs: LogMode;
  cwd: string;
  nodeFlags?: readonly string[] | undefined;
  log: (line: string) => void;
}): SupervisedService {
  let current: ServiceProcess;
  let wanted = true;
  let restarts = 0;
  let crashesInARow = 0;
  let restartTimer: NodeJS.Timeout | undefined;

  const spawn = () => {
    const startedAt = Date.now();
    const child = startServiceProcess(opts);
    current = child;
    child.process.once('exit', (code, signal) => {
      if (!wanted || current !== child) return;
      if (Date.now() - startedAt >= STABLE_AFTER_MS) crashesInARow = 0;
      const delay = RESTART_BACKOFF_MS[Math.min(crashesInARow, RESTART_BACKOFF_MS.length - 1)]!;
      crashesInARow++;
      opts.log(
        `${opts.name} (pid ${child.process.pid}) exited unexpectedly (${signal ? `signal ${signal}` : `code ${code}`}); restarting in ${delay} ms`,
      );
      restartTimer = setTimeout(() => {
        restartTimer = undefined;
        if (!wanted) return;
        restarts++;
        spawn();
        opts.log(`${opts.name} restarted (pid ${current.process.pid}, restart ${restarts})`);
      }, delay);
    });
  };
  spawn();

  return {
    name: opts.name,
    get process() {
      return current.process;
    },
    get exited() {
      return current.exited;
    },
    get restarts() {
      return restarts;
    },
    async stop(graceMs) {
      wanted = false;
      clearTimeout(restartTimer);
      await current.stop(graceMs);
    },
    async kill(o = {}) {
      if (o.restart === false) {
        wanted = false;
        clearTimeout(restartTimer);
      }
      await current.kill();
    },
    start() {
      if (wanted) return;
      wanted = true;
      crashesInARow = 0;
      spawn();
    },
  };
}
