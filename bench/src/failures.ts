/** A scenario group that did not complete, and why. */
export interface Failure {
  scenarios: string;
  error: string;
}

/**
 * Runs scenario groups so that one that throws does not take the others' figures with it: its failure is
 * logged and kept, and the run goes on. `notMeasured` names them under the table.
 */
export function scenarioAttempts(log: (message: string) => void) {
  const failed: Failure[] = [];
  return {
    failed,
    async attempt(scenarios: string, run: () => Promise<void>): Promise<void> {
      try {
        await run();
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        log(`${scenarios} did not complete: ${error}`);
        failed.push({ scenarios, error });
      }
    },
    /** Lines to go under the table, one a failed group (empty when every group completed). */
    notMeasured: () => failed.map((f) => `Not measured: ${f.scenarios}, ${f.error}`),
  };
}
