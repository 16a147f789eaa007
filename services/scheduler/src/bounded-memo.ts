/**
 * A pure function, remembered: the answer for arguments with the same key is computed once, and the oldest
 * keys are forgotten past `max`. Only for functions whose answer never changes for the same arguments.
 */
export function boundedMemo<A extends unknown[], T>(fn: (...args: A) => T, keyOf: (...args: A) => string, max = 10_000): (...args: A) => T {
  const known = new Map<string, T>();
  return (...args) => {
    const key = keyOf(...args);
    if (known.has(key)) return known.get(key) as T;
    const value = fn(...args);
    if (known.size >= max) known.delete(known.keys().next().value!);
    known.set(key, value);
    return value;
  };
}
