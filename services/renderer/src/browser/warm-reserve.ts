import type { IsolatedPage } from './isolated-page.js';

export interface WarmReserveOptions {
  /** Contexts kept ready. */
  size: number;
  open: () => Promise<IsolatedPage>;
  close: (isolated: IsolatedPage) => void;
  /** False once the browser no longer takes work (or the pool stops): nothing more is opened or kept. */
  wanted: () => boolean;
  onError: (err: unknown) => void;
}

/**
 * One browser's reserve of isolated contexts with a page ready, opened ahead of demand: a render takes
 * one instead of waiting for a context to open, and the reserve is refilled one at a time in the
 * background. A context that closed while waiting is thrown away, never handed out.
 */
export class WarmReserve {
  readonly #opts: WarmReserveOptions;
  readonly #ready: IsolatedPage[] = [];
  #opening = false;

  constructor(opts: WarmReserveOptions) {
    this.#opts = { ...opts, size: Math.max(0, opts.size) };
  }

  /** Contexts ready now. */
  get ready(): number {
    return this.#ready.length;
  }

  /** A ready context, or undefined when there is none. Refills now only when it ran dry (otherwise after the render, see `refill`). */
  take(): IsolatedPage | undefined {
    let isolated: IsolatedPage | undefined;
    while ((isolated = this.#ready.pop()) && isolated.page.isClosed()) this.#opts.close(isolated);
    if (this.#ready.length === 0) this.refill();
    return isolated;
  }

  /** Opens contexts in the background, one at a time, until the reserve is full. */
  refill(): void {
    if (this.#opening || !this.#opts.wanted() || this.#ready.length >= this.#opts.size) return;
    this.#opening = true;
    this.#opts.open().then(
      (isolated) => {
        this.#opening = false;
        if (!this.#opts.wanted()) return this.#opts.close(isolated);
        this.#ready.push(isolated);
        this.refill();
      },
      (err: unknown) => {
        this.#opening = false;
        this.#opts.onError(err);
      },
    );
  }

  /** Fills the reserve before the browser takes work (a failure is the launch's). */
  async fill(): Promise<void> {
    while (this.#ready.length < this.#opts.size) this.#ready.push(await this.#opts.open());
  }

  /** Closes every ready context (the browser is retiring). */
  closeAll(): void {
    for (const isolated of this.#ready.splice(0)) this.#opts.close(isolated);
  }

  /** Forgets every ready context (its browser is gone or closing with them). */
  forget(): void {
    this.#ready.length = 0;
  }
}
