import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContextOptions, Page } from 'puppeteer-core';
import { AppError, errors, isAppError } from '@app/errors';
import { findChromium } from './launch-options.js';
import { closeIsolatedPage, openIsolatedPage, type IsolatedPage } from './isolated-page.js';
import { launchManagedBrowser, type ManagedBrowser } from './managed-browser.js';
import { settleWithin } from './settle-within.js';
import { sweepDeadProfiles } from './profile-dirs.js';

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
/** active → retiring (replacement launching, still serving) → draining (no new work) → closing; or → dead (crashed/killed). */
export type SlotState = 'active' | 'retiring' | 'draining' | 'closing' | 'dead';

interface Slot {
  readonly id: number;
  readonly managed: ManagedBrowser;
  state: SlotState;
  renders: number;
  readonly leases: Set<Lease>;
  readonly warm: IsolatedPage[];
  warming: boolean;
}

interface Lease {
  readonly slot: Slot;
  isolated?: IsolatedPage;
  /** An on-demand context being opened for this lease. */
  opening?: Promise<IsolatedPage>;
  released?: boolean;
  failure?: AppError;
  fail(err: AppError): void;
}

interface Job {
  readonly task: (page: Page) => Promise<unknown>;
  readonly timeoutMs: number;
  readonly context: BrowserContextOptions | undefined;
  readonly deadlineAt: number;
  readonly resolve: (value: unknown) => void;
  readonly reject: (err: unknown) => void;
  queueTimer?: NodeJS.Timeout;
}

/** How long a context may take to close after a render before its browser is killed. */
const CONTEXT_CLOSE_GRACE_MS = 2_000;
const BROWSER_CLOSE_GRACE_MS = 5_000;
const RELAUNCH_BACKOFF_MS = [250, 1_000, 2_000, 5_000, 10_000];

const silentLogger: PoolLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Supervised Chromium pool: browsers are launched once and kept warm, every render gets a fresh
 * isolated context (pre-warmed when possible) that is always closed afterwards, concurrency and
 * queue are bounded, deadlines are enforced by a timer outside CDP with escalation to SIGKILL,
 * crashed browsers are replaced, and browsers are recycled after `restartAfter` renders.
 */
export class BrowserPool {
  readonly #opts: BrowserPoolOptions;
  readonly #log: PoolLogger;
  #state: PoolState = 'idle';
  #executablePath = '';
  #slots: Slot[] = [];
  #queue: Job[] = [];
  #inFlight = 0;
  #launching = 0;
  #restarts = 0;
  #nextSlotId = 1;
  #idleWaiters: Array<() => void> = [];
  /** Launches, replacements, closes and exits still under way; stop() waits for all of them. */
  #background = new Set<Promise<unknown>>();
  readonly #stopSignal = new AbortController();
  #starting: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;

  constructor(opts: BrowserPoolOptions) {
    for (const key of ['browsers', 'concurrency'] as const) {
      if (!(opts[key] >= 1)) throw new Error(`BrowserPool: ${key} must be at least 1.`);
    }
    this.#opts = { ...opts, maxQueue: Math.max(0, opts.maxQueue), warmContexts: Math.max(0, opts.warmContexts) };
    this.#log = opts.logger ?? silentLogger;
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
      this.#executablePath = findChromium({ executablePath: this.#opts.executablePath });
    } catch (err) {
      this.#state = 'stopped';
      throw err;
    }
    // Profiles a SIGKILLed renderer on this machine left behind (it could not delete them itself).
    const swept = await sweepDeadProfiles();
    if (swept.length > 0) this.#log.info({ folders: swept }, 'removed the browser profiles of renderers that are gone');
    const launched = await Promise.allSettled(Array.from({ length: this.#opts.browsers }, () => this.#launchSlot()));
    const failed = launched.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    const slots = launched.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    if (failed || this.#state !== 'starting') {
      await Promise.allSettled(slots.map((slot) => this.#closeSlot(slot)));
      this.#state = 'stopped';
      throw failed ? failed.reason : new Error('BrowserPool: stopped while starting.');
    }
    this.#state = 'running';
    for (const slot of slots) {
      if (slot.state === 'dead') this.#track(this.#launchReplacement()); // crashed while the others started
      else this.#addSlot(slot);
    }
    this.#log.info({ browsers: slots.map((s) => s.managed.pid), executablePath: this.#executablePath }, 'browser pool started');
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
      if (this.#queue.length === 0 && this.#inFlight < this.#opts.concurrency) {
        const slot = this.#pickSlot();
        if (slot) return void this.#execute(job, slot);
      }
      if (this.#queue.length >= this.#opts.maxQueue) return reject(errors.rendererUnavailable());
      job.queueTimer = setTimeout(() => {
        const index = this.#queue.indexOf(job);
        if (index >= 0) this.#queue.splice(index, 1);
        reject(errors.rendererUnavailable());
      }, opts.timeoutMs);
      this.#queue.push(job);
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
      inFlight: this.#inFlight,
      queued: this.#queue.length,
      launching: this.#launching,
      restarts: this.#restarts,
      browsers: this.#slots.map((slot) => ({
        id: slot.id,
        pid: slot.managed.pid,
        state: slot.state,
        renders: slot.renders,
        inFlight: slot.leases.size,
        warm: slot.warm.length,
      })),
    };
  }

  /** True while at least one browser accepts work. */
  healthy(): boolean {
    return this.#state === 'running' && this.#slots.some(accepting);
  }

  async #stop(): Promise<void> {
    const wasStarted = this.#state !== 'idle';
    this.#state = 'stopping';
    this.#stopSignal.abort();
    await this.#starting?.catch(() => undefined);
    for (const job of this.#queue.splice(0)) {
      clearTimeout(job.queueTimer);
      job.reject(errors.rendererUnavailable());
    }
    if (this.#inFlight > 0) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
    await Promise.allSettled([...this.#slots].map((slot) => this.#closeSlot(slot)));
    this.#state = 'stopped';
    if (wasStarted) this.#log.info({}, 'browser pool stopped');
  }

  // ---- dispatching ---------------------------------------------------------------------------

  #pickSlot(): Slot | undefined {
    let best: Slot | undefined;
    for (const slot of this.#slots) {
      if (!accepting(slot)) continue;
      if (
        !best ||
        slot.leases.size < best.leases.size ||
        (slot.leases.size === best.leases.size && slot.warm.length > best.warm.length)
      ) {
        best = slot;
      }
    }
    return best;
  }

  #dispatch(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.#opts.concurrency && this.#state === 'running') {
      const slot = this.#pickSlot();
      if (!slot) return;
      const job = this.#queue.shift()!;
      clearTimeout(job.queueTimer);
      void this.#execute(job, slot);
    }
  }

  async #execute(job: Job, slot: Slot): Promise<void> {
    this.#inFlight++;
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
    if (this.#opts.restartAfter > 0 && slot.renders >= this.#opts.restartAfter) this.#retire(slot);

    const timer = setTimeout(
      () => lease.fail(errors.renderTimeout(job.timeoutMs / 1000)),
      Math.max(0, job.deadlineAt - Date.now()),
    );
    const onPageCrash = (): void => lease.fail(new AppError('render_failed', 'The page crashed during the render.'));
    try {
      const warm = job.context ? undefined : this.#takeWarm(slot);
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

  #takeWarm(slot: Slot): IsolatedPage | undefined {
    let isolated: IsolatedPage | undefined;
    while ((isolated = slot.warm.pop()) && isolated.page.isClosed()) void closeIsolatedPage(isolated, CONTEXT_CLOSE_GRACE_MS);
    // Replenish now only when the reserve ran dry; otherwise after this render, so it does not compete for CPU.
    if (slot.warm.length === 0) this.#replenish(slot);
    return isolated;
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
        this.#browserGone(slot, 'context close hung');
      }
    }
    slot.leases.delete(lease);
    this.#inFlight--;
    if (slot.state === 'draining' && slot.leases.size === 0) this.#track(this.#closeSlot(slot));
    this.#replenish(slot);
    this.#dispatch();
    if (this.#inFlight === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
  }

  // ---- warm contexts ---------------------------------------------------------------------------

  #replenish(slot: Slot): void {
    if (slot.warming || !accepting(slot) || slot.warm.length >= this.#opts.warmContexts) return;
    if (this.#state !== 'running' && this.#state !== 'starting') return;
    slot.warming = true;
    openIsolatedPage(slot.managed.browser).then(
      (isolated) => {
        slot.warming = false;
        if (accepting(slot) && (this.#state === 'running' || this.#state === 'starting')) {
          slot.warm.push(isolated);
          this.#replenish(slot);
        } else {
          void closeIsolatedPage(isolated, CONTEXT_CLOSE_GRACE_MS);
        }
      },
      (err: unknown) => {
        slot.warming = false;
        if (slot.state !== 'dead') this.#log.warn({ pid: slot.managed.pid, err: errorText(err) }, 'could not warm a browser context');
      },
    );
  }

  async #fillWarm(slot: Slot): Promise<void> {
    while (slot.warm.length < this.#opts.warmContexts) slot.warm.push(await openIsolatedPage(slot.managed.browser));
  }

  // ---- browser lifecycle -----------------------------------------------------------------------

  /** Launches a browser and fills its warm contexts before it takes work. */
  async #launchSlot(): Promise<Slot> {
    this.#launching++;
    const launch = (async () => {
      const managed = await launchManagedBrowser({
        executablePath: this.#executablePath,
        proxyUrl: this.#opts.proxyUrl,
        gpu: this.#opts.gpu,
        trustedSpki: this.#opts.trustedSpki,
      });
      const slot: Slot = {
        id: this.#nextSlotId++,
        managed,
        state: 'active',
        renders: 0,
        leases: new Set(),
        warm: [],
        warming: false,
      };
      managed.browser.once('disconnected', () => this.#browserGone(slot, 'disconnected'));
      try {
        await this.#fillWarm(slot);
      } catch (err) {
        slot.state = 'closing';
        await managed.close(BROWSER_CLOSE_GRACE_MS);
        throw err;
      }
      return slot;
    })();
    this.#track(launch);
    try {
      return await launch;
    } finally {
      this.#launching--;
    }
  }

  #addSlot(slot: Slot): void {
    this.#slots.push(slot);
    this.#log.info({ pid: slot.managed.pid, id: slot.id }, 'browser ready');
    this.#dispatch();
  }

  /** Launches a browser until one starts or the pool stops; adds it to the pool. */
  async #launchReplacement(): Promise<Slot | undefined> {
    for (let attempt = 0; this.#state === 'running'; attempt++) {
      try {
        const slot = await this.#launchSlot();
        if (this.#state !== 'running') {
          await this.#closeSlot(slot);
          return undefined;
        }
        if (slot.state === 'dead') continue;
        this.#addSlot(slot);
        this.#restarts++;
        return slot;
      } catch (err) {
        const delay = RELAUNCH_BACKOFF_MS[Math.min(attempt, RELAUNCH_BACKOFF_MS.length - 1)]!;
        this.#log.error({ err: errorText(err), attempt, retryInMs: delay }, 'browser launch failed');
        await sleep(delay, undefined, { signal: this.#stopSignal.signal }).catch(() => undefined);
      }
    }
    return undefined;
  }

  /** Restart-after-N: keep serving until the replacement is up, then drain and close. */
  #retire(slot: Slot): void {
    if (slot.state !== 'active' || this.#state !== 'running') return;
    slot.state = 'retiring';
    this.#log.info({ pid: slot.managed.pid, renders: slot.renders }, 'recycling browser');
    this.#track(
      this.#launchReplacement().then(() => {
        if (slot.state !== 'retiring') return;
        slot.state = 'draining';
        for (const isolated of slot.warm.splice(0)) void closeIsolatedPage(isolated, CONTEXT_CLOSE_GRACE_MS);
        if (slot.leases.size === 0) this.#track(this.#closeSlot(slot));
      }),
    );
  }

  /** A browser crashed, was killed or disconnected: fail its renders, make sure it is dead, replace it. */
  #browserGone(slot: Slot, reason: string): void {
    if (slot.state === 'dead' || slot.state === 'closing') return;
    // Only a serving browser is replaced: a retiring one already has its replacement coming, and one
    // still warming up makes its own launch fail and retry.
    const needsReplacement = slot.state === 'active' && this.#slots.includes(slot);
    slot.state = 'dead';
    this.#slots = this.#slots.filter((s) => s !== slot);
    slot.managed.kill();
    this.#track(settleWithin(slot.managed.exited, BROWSER_CLOSE_GRACE_MS));
    slot.warm.length = 0;
    for (const lease of slot.leases) lease.fail(browserGoneError());
    this.#log.warn({ pid: slot.managed.pid, reason, inFlight: slot.leases.size }, 'browser gone');
    if (needsReplacement && this.#state === 'running') this.#track(this.#launchReplacement());
  }

  #track(work: Promise<unknown>): void {
    this.#background.add(work);
    const forget = (): void => void this.#background.delete(work);
    work.then(forget, forget);
  }

  async #closeSlot(slot: Slot): Promise<void> {
    if (slot.state === 'closing') return slot.managed.exited;
    const wasDead = slot.state === 'dead';
    slot.state = 'closing';
    this.#slots = this.#slots.filter((s) => s !== slot);
    slot.warm.length = 0;
    if (wasDead) {
      slot.managed.kill();
      await slot.managed.exited;
      return;
    }
    await slot.managed.close(BROWSER_CLOSE_GRACE_MS);
    this.#log.info({ pid: slot.managed.pid, renders: slot.renders }, 'browser closed');
  }
}

/** Re-reads the state after an await (TypeScript keeps the narrowing from before it). */
function isAlive(slot: Slot): boolean {
  return slot.state !== 'dead';
}

function accepting(slot: Slot): boolean {
  return slot.state === 'active' || slot.state === 'retiring';
}

function browserGoneError(cause?: unknown): AppError {
  return new AppError('render_failed', 'The browser stopped during the render; retry the request.', { cause });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
