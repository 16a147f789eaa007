/**
 * Waits for `promise` to settle (resolve or reject) for at most `ms`.
 * Resolves true when it settled in time, false when the time ran out. Never rejects.
 */
export function settleWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const done = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    promise.then(done, done);
  });
}
