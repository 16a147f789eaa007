import { setTimeout as sleep } from 'node:timers/promises';
import { findChromium } from './launch-options.js';
import { closeIsolatedPage, openIsolatedPage } from './isolated-page.js';
import { launchManagedBrowser } from './managed-browser.js';
import { settleWithin } from './settle-within.js';
import { sweepDeadOwners } from './owned-dirs.js';
import { WarmReserve } from './warm-reserve.js';
import { accepting, browserGoneError, errorText, type Slot } from './browser-slot.js';
import type { PoolLogger } from './browser-pool.js';

/** How long a context may take to close before its browser is killed. */
export const CONTEXT_CLOSE_GRACE_MS = 2_000;
const BROWSER_CLOSE_GRACE_MS = 5_000;
const RELAUNCH_BACKOFF_MS = [250, 1_000, 2_000, 5_000, 10_000];

export interface SupervisorOptions {
  executablePath?: string | undefined;
  proxyUrl?: string | undefined;
  gpu?: boolean | undefined;
  trustedSpki?: readonly string[] | undefined;
  /** Warm contexts per browser. */
  warmContexts: number;
  logger: PoolLogger;
  /** True while the pool serves: a browser that dies is replaced only then. */
  running: () => boolean;
  /** True while the pool starts or serves: warm contexts are kept only then. */
  live: () => boolean;
  /** A browser joined the pool (work may be waiting for it). */
  onReady: () => void;
}

/**
 * The browsers of a pool: launches them (each with its warm reserve filled before it takes work),
 * replaces one that crashed, hung or was killed (with backoff while launches fail), recycles one after
 * its render budget (the replacement up before it drains), and closes them. It also removes the
 * profiles a killed renderer left behind.
 */
export class BrowserSupervisor {
  readonly #opts: SupervisorOptions;
  #executablePath = '';
  #slots: Slot[] = [];
  #launching = 0;
  #restarts = 0;
  #nextSlotId = 1;
  /** Launches, replacements, closes and exits still under way; `settle()` waits for all of them. */
  readonly #background = new Set<Promise<unknown>>();
  readonly #stopSignal = new AbortController();

  constructor(opts: SupervisorOptions) {
    this.#opts = opts;
  }

  get slots(): readonly Slot[] {
    return this.#slots;
  }

  get launching(): number {
    return this.#launching;
  }

  /** Browsers that replaced another (crash, hang, render budget) since the pool started. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Finds Chromium (throws when it cannot) and removes the temporary folders of renderers that are gone. */
  async prepare(): Promise<void> {
    this.#executablePath = findChromium({ executablePath: this.#opts.executablePath });
    // Browser profiles and screencast encodings (partial videos) a SIGKILLed renderer on this machine
    // left behind: it could not delete them itself.
    const swept = await sweepDeadOwners();
    if (swept.length > 0) this.#opts.logger.info({ folders: swept }, 'removed the temporary folders of renderers that are gone');
  }

  get executablePath(): string {
    return this.#executablePath;
  }

  /** The accepting browser with the fewest renders (then the most warm contexts). */
  pick(): Slot | undefined {
    let best: Slot | undefined;
    for (const slot of this.#slots) {
      if (!accepting(slot)) continue;
      if (!best || slot.leases.size < best.leases.size || (slot.leases.size === best.leases.size && slot.reserve.ready > best.reserve.ready)) {
        best = slot;
      }
    }
    return best;
  }

  /** Launches a browser and fills its warm contexts before it takes work. */
  async launch(): Promise<Slot> {
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
        reserve: new WarmReserve({
          size: this.#opts.warmContexts,
          open: () => openIsolatedPage(managed.browser),
          close: (isolated) => void closeIsolatedPage(isolated, CONTEXT_CLOSE_GRACE_MS),
          wanted: () => accepting(slot) && this.#opts.live(),
          onError: (err) => {
            if (slot.state !== 'dead') this.#opts.logger.warn({ pid: managed.pid, err: errorText(err) }, 'could not warm a browser context');
          },
        }),
      };
      managed.browser.once('disconnected', () => this.gone(slot, 'disconnected'));
      try {
        await slot.reserve.fill();
      } catch (err) {
        slot.state = 'closing';
        await managed.close(BROWSER_CLOSE_GRACE_MS);
        throw err;
      }
      return slot;
    })();
    this.track(launch);
    try {
      return await launch;
    } finally {
      this.#launching--;
    }
  }

  /** Adds a launched browser to the pool. */
  add(slot: Slot): void {
    this.#slots.push(slot);
    this.#opts.logger.info({ pid: slot.managed.pid, id: slot.id }, 'browser ready');
    this.#opts.onReady();
  }

  /** Launches a browser until one starts or the pool stops serving, in the background; adds it to the pool. */
  replace(): void {
    this.track(this.#launchReplacement());
  }

  async #launchReplacement(): Promise<Slot | undefined> {
    for (let attempt = 0; this.#opts.running(); attempt++) {
      try {
        const slot = await this.launch();
        if (!this.#opts.running()) {
          await this.close(slot);
          return undefined;
        }
        if (slot.state === 'dead') continue;
        this.add(slot);
        this.#restarts++;
        return slot;
      } catch (err) {
        const delay = RELAUNCH_BACKOFF_MS[Math.min(attempt, RELAUNCH_BACKOFF_MS.length - 1)]!;
        this.#opts.logger.error({ err: errorText(err), attempt, retryInMs: delay }, 'browser launch failed');
        await sleep(delay, undefined, { signal: this.#stopSignal.signal }).catch(() => undefined);
      }
    }
    return undefined;
  }

  /** Restart-after-N: keep serving until the replacement is up, then drain and close. */
  retire(slot: Slot): void {
    if (slot.state !== 'active' || !this.#opts.running()) return;
    slot.state = 'retiring';
    this.#opts.logger.info({ pid: slot.managed.pid, renders: slot.renders }, 'recycling browser');
    this.track(
      this.#launchReplacement().then(() => {
        if (slot.state !== 'retiring') return;
        slot.state = 'draining';
        slot.reserve.closeAll();
        if (slot.leases.size === 0) this.track(this.close(slot));
      }),
    );
  }

  /** A browser crashed, was killed or disconnected: fail its renders, make sure it is dead, replace it. */
  gone(slot: Slot, reason: string): void {
    if (slot.state === 'dead' || slot.state === 'closing') return;
    // Only a serving browser is replaced: a retiring one already has its replacement coming, and one
    // still warming up makes its own launch fail and retry.
    const needsReplacement = slot.state === 'active' && this.#slots.includes(slot);
    slot.state = 'dead';
    this.#slots = this.#slots.filter((s) => s !== slot);
    slot.managed.kill();
    this.track(settleWithin(slot.managed.exited, BROWSER_CLOSE_GRACE_MS));
    slot.reserve.forget();
    for (const lease of slot.leases) lease.fail(browserGoneError());
    this.#opts.logger.warn({ pid: slot.managed.pid, reason, inFlight: slot.leases.size }, 'browser gone');
    if (needsReplacement && this.#opts.running()) this.replace();
  }

  /** Closes a browser (kills it when it is dead already) and takes it out of the pool. */
  async close(slot: Slot): Promise<void> {
    if (slot.state === 'closing') return slot.managed.exited;
    const wasDead = slot.state === 'dead';
    slot.state = 'closing';
    this.#slots = this.#slots.filter((s) => s !== slot);
    slot.reserve.forget();
    if (wasDead) {
      slot.managed.kill();
      await slot.managed.exited;
      return;
    }
    await slot.managed.close(BROWSER_CLOSE_GRACE_MS);
    this.#opts.logger.info({ pid: slot.managed.pid, renders: slot.renders }, 'browser closed');
  }

  /** Work `settle()` waits for. */
  track(work: Promise<unknown>): void {
    this.#background.add(work);
    const forget = (): void => void this.#background.delete(work);
    work.then(forget, forget);
  }

  /** Stops relaunch backoffs, waits for everything under way, then closes every browser. */
  async stop(): Promise<void> {
    this.#stopSignal.abort();
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
    await Promise.allSettled([...this.#slots].map((slot) => this.close(slot)));
  }

  /** Ends relaunch backoffs at once (the pool is stopping). */
  abort(): void {
    this.#stopSignal.abort();
  }
}
