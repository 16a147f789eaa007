/** Keys remembered as served, beyond those waiting: enough for every account a renderer serves in a while. */
const SERVED_KEPT = 1_024;

/**
 * Items waiting by key (an account), taken round robin: the next item is the oldest of the key served
 * least recently (a key never served, or forgotten, comes first; ties go to the key that came first). One
 * key with many items waiting therefore gets one turn in each round, however many it has; a key that just
 * came waits for at most one item of each other key. Pure bookkeeping.
 */
export class RoundRobinQueue<T> {
  readonly #waiting = new Map<string, T[]>();
  /** Keys by their last turn, least recent first (re-inserted when served). */
  readonly #served = new Map<string, number>();
  #turn = 0;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  push(key: string, item: T): void {
    const items = this.#waiting.get(key);
    if (items) items.push(item);
    else this.#waiting.set(key, [item]);
    this.#size++;
  }

  /**
   * The next item in turn, or undefined when none waits: of the key with the fewest items `running` (when
   * given), then the key served least recently among those.
   */
  shift(running?: (key: string) => number): T | undefined {
    let next: string | undefined;
    let nextRunning = Infinity;
    let nextTurn = Infinity;
    for (const key of this.#waiting.keys()) {
      const count = running?.(key) ?? 0;
      const turn = this.#served.get(key) ?? -1;
      if (count < nextRunning || (count === nextRunning && turn < nextTurn)) [next, nextRunning, nextTurn] = [key, count, turn];
    }
    if (next === undefined) return undefined;
    const items = this.#waiting.get(next)!;
    const item = items.shift()!;
    if (items.length === 0) this.#waiting.delete(next);
    this.#size--;
    this.#served.delete(next);
    this.#served.set(next, this.#turn++);
    if (this.#served.size > SERVED_KEPT) this.#served.delete(this.#served.keys().next().value!);
    return item;
  }

  /** Empties the queue: every item, oldest key first. */
  drain(): T[] {
    const all = [...this.#waiting.values()].flat();
    this.#waiting.clear();
    this.#size = 0;
    return all;
  }
}
