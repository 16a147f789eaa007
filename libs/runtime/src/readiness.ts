/** One dependency of a service: resolves when it is usable, throws (with the reason) when it is not. */
export type ReadinessCheck = () => Promise<void> | void;

export interface ReadinessReport {
  ready: boolean;
  /** Each dependency by name: "ok" or why it is not ready. */
  checks: Record<string, string>;
}

/** A dependency that does not answer within this is not ready (a probe must answer quickly itself). */
export const READINESS_CHECK_TIMEOUT_MS = 1_000;

const withinTimeout = (check: ReadinessCheck, timeoutMs: number) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    Promise.resolve()
      .then(check)
      .then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
  });

/** Runs every check at once; the service is ready only when all of them pass. */
export async function evaluateReadiness(
  checks: Record<string, ReadinessCheck>,
  timeoutMs = READINESS_CHECK_TIMEOUT_MS,
): Promise<ReadinessReport> {
  const names = Object.keys(checks);
  const outcomes = await Promise.allSettled(names.map((name) => withinTimeout(checks[name]!, timeoutMs)));
  const report: ReadinessReport = { ready: true, checks: {} };
  outcomes.forEach((outcome, i) => {
    if (outcome.status === 'fulfilled') report.checks[names[i]!] = 'ok';
    else {
      report.ready = false;
      report.checks[names[i]!] = (outcome.reason as Error).message;
    }
  });
  return report;
}
