import type { BrowserContextOptions, Page } from 'puppeteer-core';
import { AppError, errors, isAppError } from '@app/errors';
import { closeIsolatedPage, openIsolatedPage, type IsolatedPage } from './isolated-page.js';
import { settleWithin } from './settle-within.js';
import { RenderQueue } from './render-queue.js';
import { BrowserSupervisor, CONTEXT_CLOSE_GRACE_MS } from './browser-supervisor.js';
import { accepting, browserGoneError, isAlive, type Slot, type SlotLease, type SlotState } from './browser-slot.js';

export type { SlotState } from './browser-slot.js';

type LogFn = (fields: Record<string, unknown>, msg: string) => void;
export interface PoolLogger {
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

export interface BrowserPoolOptions {
  /** Chromium processes kept running. */
  browsers: number;
  /** Renders at once across all browsers. */
  concurrency: number;
  /** Renders waiting for a slot; one more is refused with renderer_unavailable. */
  maxQueue: number;
  /** Renders per browser before it is recycled (0 = never). */
  restartAfter: number;
  /** Per browser: isolated contexts with a page ready, created ahead of demand. */
  warmContexts: number;
  /** Egress proxy for all browser traffic (the SSRF guard). */
  proxyUrl?: string | undefined;
  executablePath?: string | undefined;
  gpu?: boolean | undefined;
  /** Public-key hashes of certificates the browsers trust besides their own store (RENDERER_TRUSTED_CERTS). */
  trustedSpki?: readonly string[] | undefined;
  logger?: PoolLogger | undefined;
}

export interface RunOptions {
  /** Whole budget of the render, queue wait included. */
  timeoutMs: number;
  /** Settings of a context of its own (e.g. a proxy): a pre-warmed context is not used. */
  context?: BrowserContextOptions | undefined;
}

export interface BrowserStats {
  id: number;
  pid: number | undefined;
  state: SlotState;
  renders: number;
  inFlight: number;
  warm: number;
}

export interface PoolStats {
  state: PoolState;
  inFlight: number;
  queued: number;
  launching: number;
  /** Browsers that replaced another (crash, hang, render budget) since the pool started. */
  restarts: number;
  browsers: BrowserStats[];
}

export type PoolState = 'idle' | 'starting' | 'running' | 'stopping' | 'stopped';

interface Lease extends SlotLease {
  readonly slot: Slot;
  isolated?: IsolatedPage;
  /** An on-demand context being opened for this lease. */
  opening?: Promise<IsolatedPage>;
  released?: boolean;
  failure?: AppError;
}

interface Job {
  readonly task: (page: Page) => Promise<unknown>;
  readonly timeoutMs: number;
  readonly context: BrowserContextOptions | undefined;
  readonly deadlineAt: number;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
}

const silentLogger: PoolLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Supervised Chromium pool, in three parts: a render queue (bounded concurrency and waiting), a warm
 * reserve of isolated contexts per browser, and a browser supervisor (launch, crash and hang
 * replacement, recycling after `restartAfter` renders). This class runs each render: a fresh isolated
 * context (pre-warmed when possible) that is always closed afterwards, and a deadline enforced by a
 * timer outside CDP, with escalation to SIGKILL of a browser that will not close a context.
 */
export class BrowserPool {
  readonly #opts: BrowserPoolOptions;
  readonly #log: PoolLogger;
  readonly #queue: RenderQueue<Job>;
  readonly #browsers: BrowserSupervisor;
  #state: PoolState = 'idle';
  #idleWaiters: Array<() => void> = [];
  #starting: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;

  constructor(opts: BrowserPoolOptions) {
    for (const key of ['browsers', 'concurrency'] as const) {
      if (!(opts[key] >= 1)) throw new Error(`BrowserPool: ${key} must be at least 1.`);
    }
    this.#opts = { ...opts, maxQueue: Math.max(0, opts.maxQueue), warmContexts: Math.max(0, opts.warmContexts) };
    this.#log = opts.logger ?? silentLogger;
    this.#queue = new RenderQueue<Job>({
      concurrency: this.#opts.concurrency,
      maxQueue: this.#opts.maxQueue,
      start: (job) => {
        if (this.#state !== 'running') return false;
        const slot = this.#browsers.pick();
        if (!slot) return false;
        void this.#execute(job, slot);
        return true;
      },
    });
    this.#browsers = new BrowserSupervisor({
      executablePath: this.#opts.executablePath,
      proxyUrl: this.#opts.proxyUrl,
      gpu: this.#opts.gpu,
      trustedSpki: this.#opts.trustedSpki,
      warmContexts: this.#opts.warmContexts,
      logger: this.#log,
      running: () => this.#state === 'running',
      live: () => this.#state === 'running' || this.#state === 'starting',
      onReady: () => this.#queue.dispatch(),
    });
  }

  /** Launches every browser and fills its warm contexts. Rejects (leaving nothing running) if a launch fails. */
  start(): Promise<void> {
    if (this.#state !== 'idle') return Promise.reject(new Error(`BrowserPool: start() called while ${this.#state}.`));
    this.#state = 'starting';
    this.#starting = this.#start();
    return this.#starting;
  }

  async #start(): Promise<void> {
    try {
      await this.#browsers.prepare();
    } catch (err) {
      this.#state = 'stopped';
      throw err;
    }
    const launched = await Promise.allSettled(Array.from({ length: this.#opts.browsers }, () => this.#browsers.launch()));
    const failed = launched.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    const slots = launched.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    if (failed || this.#state !== 'starting') {
      await Promise.allSettled(slots.map((slot) => this.#browsers.close(slot)));
      this.#state = 'stopped';
      throw failed ? failed.reason : new Error('BrowserPool: stopped while starting.');
    }
    this.#state = 'running';
    for (const slot of slots) {
      if (slot.state === 'dead') this.#browsers.replace(); // crashed while the others started
      else this.#browsers.add(slot);
    }
    this.#log.info({ browsers: slots.map((s) => s.managed.pid), executablePath: this.#browsers.executablePath }, 'browser pool started');
  }

  /**
   * Runs `task` on a page in a fresh isolated context. Rejects with renderer_unavailable when the
   * queue is full or the deadline passes while queued, render_timeout when it passes while rendering,
   * render_failed when the browser or page crashes. The context is closed in every case.
   */
  run<T>(task: (page: Page) => Promise<T>, opts: RunOptions): Promise<T> {
    if (this.#state !== 'running') return Promise.reject(errors.rendererUnavailable());
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        task,
        timeoutMs: opts.timeoutMs,
        context: opts.context,
        deadlineAt: Date.now() + opts.timeoutMs,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      const admission = this.#queue.submit(job, opts.timeoutMs, () => reject(errors.rendererUnavailable()));
      if (admission === 'refused') reject(errors.rendererUnavailable());
    });
  }

  /** Refuses queued and new work, waits for in-flight renders (each bounded by its deadline), closes every browser. */
  stop(): Promise<void> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  stats(): PoolStats {
    return {
      state: this.#state,
      inFlight: this.#queue.running,
      queued: this.#queue.waiting,
      launching: this.#browsers.launching,
      restarts: this.#browsers.restarts,
      browsers: this.#browsers.slots.map((slot) => ({
        id: slot.id,
        pid: slot.managed.pid,
        state: slot.state,
        renders: slot.renders,
        inFlight: slot.leases.size,
        warm: slot.reserve.ready,
      })),
    };
  }

  /** True while at least one browser accepts work. */
  healthy(): boolean {
    return this.#state === 'running' && this.#browsers.slots.some(accepting);
  }

  async #stop(): Promise<void> {
    const wasStarted = this.#state !== 'idle';
    this.#state = 'stopping';
    this.#browsers.abort();
    await this.#starting?.catch(() => undefined);
    for (const job of this.#queue.drain()) job.reject(errors.rendererUnavailable());
    if (this.#queue.running > 0) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    await this.#browsers.stop();
    this.#state = 'stopped';
    if (wasStarted) this.#log.info({}, 'browser pool stopped');
  }

  // ---- one render ----------------------------------------------------------------------------

  async #execute(job: Job, slot: Slot): Promise<void> {
    slot.renders++;
    let rejectFailure!: (err: AppError) => void;
    const failed = new Promise<never>((_, reject) => (rejectFailure = reject));
    failed.catch(() => undefined);
    const lease: Lease = {
      slot,
      fail(err) {
        if (lease.failure) return;
        lease.failure = err;
        rejectFailure(err);
      },
    };
    slot.leases.add(lease);
    if (this.#opts.restartAfter > 0 && slot.renders >= this.#opts.restartAfter) this.#browsers.retire(slot);

    const timer = setTimeout(
      () => lease.fail(errors.renderTimeout(job.timeoutMs / 1000)),
      Math.max(0, job.deadlineAt - Date.now()),
    );
    const onPageCrash = (): void => lease.fail(new AppError('render_failed', 'The page crashed during the render.'));
    try {
      const warm = job.context ? undefined : slot.reserve.take();
      const isolated = warm ?? (await Promise.race([this.#openForLease(lease, job.context), failed]));
      lease.isolated = isolated;
      isolated.page.once('error', onPageCrash);
      job.resolve(await Promise.race([job.task(isolated.page), failed]));
    } catch (err) {
      job.reject(this.#describeFailure(err, lease));
    } finally {
      clearTimeout(timer);
      lease.isolated?.page.off('error', onPageCrash);
      await this.#release(lease);
    }
  }

  /** Opens a context on demand. One that arrives after the lease was released is closed at once. */
  #openForLease(lease: Lease, context?: BrowserContextOptions): Promise<IsolatedPage> {
    lease.opening = openIsolatedPage(lease.slot.managed.browser, context).then((isolated) => {
      if (lease.released) void closeIsolatedPage(isolated, CONTEXT_CLOSE_GRACE_MS);
      return isolated;
    });
    return lease.opening;
  }

  #describeFailure(err: unknown, lease: Lease): unknown {
    if (lease.failure) return lease.failure;
    if (isAppError(err)) return err;
    if (lease.slot.state === 'dead' || !lease.slot.managed.browser.connected || lease.isolated?.page.isClosed()) {
      return browserGoneError(err);
    }
    return err;
  }

  async #release(lease: Lease): Promise<void> {
    lease.released = true;
    const { slot, isolated } = lease;
    if (slot.state !== 'dead') {
      // Escalation: a context that will not close (or open) within the grace means a wedged browser.
      const settled = isolated
        ? await closeIsolatedPage(isolated, CONTEXT_CLOSE_GRACE_MS)
        : !lease.opening || (await settleWithin(lease.opening, CONTEXT_CLOSE_GRACE_MS));
      if (!settled && isAlive(slot)) {
        this.#log.warn({ pid: slot.managed.pid }, 'browser context did not close in time; killing the browser');
        this.#browsers.gone(slot, 'context close hung');
      }
    }
    slot.leases.delete(lease);
    if (slot.state === 'draining' && slot.leases.size === 0) this.#browsers.track(this.#browsers.close(slot));
    slot.reserve.refill();
    this.#queue.done();
    if (this.#queue.running === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
  }
}
