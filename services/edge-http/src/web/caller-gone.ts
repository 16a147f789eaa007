/**
 * Whether a render's caller went away before its answer (its timeout, a closed connection), with an
 * AbortSignal that aborts then. The signal is made on first ask: a cache hit never asks, and making an
 * AbortSignal for every render request cost the edge about 7% of its CPU under a load of cache hits.
 */
export class CallerGone {
  #controller: AbortController | undefined;
  #gone = false;

  get gone(): boolean {
    return this.#gone;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#gone) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  /** The caller went away: the signal (if one was asked for) aborts. */
  leave(): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#controller?.abort();
  }
}
