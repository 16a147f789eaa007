import { LRUCache } from 'lru-cache';

/**
 * A pure function, remembered: the answer for arguments with the same key is computed once, and the least
 * recently used keys are forgotten past `max`. Only for functions whose answer never changes for the same
 * arguments.
 */
export function boundedMemo<A extends unknown[], T>(fn: (...args: A) => T, keyOf: (...args: A) => string, max = 10_000): (...args: A) => T {
  // Boxed: an answer may be undefined, which the cache cannot hold as a value.
  const known = new LRUCache<string, { answer: T }>({ max });
  return (...args) => {
    const key = keyOf(...args);
    const hit = known.get(key);
    if (hit) return hit.answer;
    const answer = fn(...args);
    known.set(key, { answer });
    return answer;
  };
}
