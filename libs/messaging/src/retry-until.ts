/**
 * The one retry loop of the bus's plumbing: runs `op` and, while it fails with an error `retryOn` accepts,
 * runs it again after `intervalMs` (doubling up to `maxIntervalMs`), for up to `timeoutMs`. Any other
 * error, or one past the deadline, is thrown. Only for operations safe to repeat.
 */
export async function retryUntil<T>(
  op: () => Promise<T>,
  opts: { retryOn: (err: unknown) => boolean; timeoutMs: number; intervalMs: number; maxIntervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await op();
    } catch (err) {
      if (!opts.retryOn(err) || Date.now() >= deadline) throw err;
      await new Promise((r) => setTimeout(r, Math.min(opts.intervalMs * 2 ** attempt, opts.maxIntervalMs ?? opts.intervalMs)));
    }
  }
}

/** Asks `done` every `intervalMs` until it is true; still false after `timeoutMs`, throws `failure`. */
export async function pollUntil(done: () => Promise<boolean>, opts: { timeoutMs: number; intervalMs: number; failure: unknown }): Promise<void> {
  const notYet = new Error('not yet');
  await retryUntil(
    async () => {
      if (!(await done())) throw notYet;
    },
    { retryOn: (err) => err === notYet, timeoutMs: opts.timeoutMs, intervalMs: opts.intervalMs },
  ).catch((err: unknown) => {
    throw err === notYet ? opts.failure : err;
  });
}
