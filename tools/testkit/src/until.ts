/**
 * Polls `check` every `intervalMs` until it returns true or `timeoutMs` passes. A check that calls the API
 * counts against the account's rate limit: poll such a check slowly.
 */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what = 'condition', intervalMs = 50): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
}
