interface Waiting<J> {
  readonly job: J;
  readonly timer: NodeJS.Timeout;
}

export type Admission = 'started' | 'queued' | 'refused';

/**
 * The render queue of a pool: at most `concurrency` renders at once and at most `maxQueue` waiting,
 * first come first served; a job that waits past its time leaves the queue. Bookkeeping only: `start`
 * is asked to run a job and says whether a browser could take it (false: none free right now).
 */
export class RenderQueue<J> {
  readonly #opts: { concurrency: number; maxQueue: number; start: (job: J) => boolean };
  #waiting: Waiting<J>[] = [];
  #running = 0;

  constructor(opts: { concurrency: number; maxQueue: number; start: (job: J) => boolean }) {
    this.#opts = { ...opts, maxQueue: Math.max(0, opts.maxQueue) };
  }

  /** Renders started and not done. */
  get running(): number {
    return this.#running;
  }

  /** Jobs waiting for a place. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * Starts `job` at once when nobody waits, there is room and a browser takes it; otherwise queues it
   * for at most `waitMs` (then it leaves the queue and `onExpired` is called); refuses it when the queue
   * is full.
   */
  submit(job: J, waitMs: number, onExpired: (job: J) => void): Admission {
    if (this.#waiting.length === 0 && this.#running < this.#opts.concurrency && this.#tryStart(job)) return 'started';
    if (this.#waiting.length >= this.#opts.maxQueue) return 'refused';
    const entry: Waiting<J> = {
      job,
      timer: setTimeout(() => {
        const index = this.#waiting.indexOf(entry);
        if (index < 0) return;
        this.#waiting.splice(index, 1);
        onExpired(job);
      }, waitMs),
    };
    this.#waiting.push(entry);
    return 'queued';
  }

  /** A started job is done: its place goes to the next waiting job. */
  done(): void {
    this.#running--;
    this.dispatch();
  }

  /** Starts waiting jobs, oldest first, while there is room and a browser takes them (one became free or ready). */
  dispatch(): void {
    while (this.#waiting.length > 0 && this.#running < this.#opts.concurrency) {
      const next = this.#waiting[0]!;
      if (!this.#tryStart(next.job)) return;
      this.#waiting.shift();
      clearTimeout(next.timer);
    }
  }

  /** Empties the queue (stopping): the jobs that were waiting, for their callers to be answered. */
  drain(): J[] {
    const all = this.#waiting.splice(0);
    for (const entry of all) clearTimeout(entry.timer);
    return all.map((entry) => entry.job);
  }

  #tryStart(job: J): boolean {
    if (!this.#opts.start(job)) return false;
    this.#running++;
    return true;
  }
}
