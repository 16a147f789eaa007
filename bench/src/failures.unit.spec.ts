import { describe, expect, it } from 'vitest';
import { scenarioAttempts } from './failures.js';

describe('Scenario groups of a bench run', () => {
  describe('When one group throws between two that complete', () => {
    it('should run the group after it, keep what each measured, and name the one that failed', async () => {
      const logged: string[] = [];
      const rows: string[] = [];
      const run = scenarioAttempts((m) => logged.push(m));
      await run.attempt('(2)', async () => void rows.push('(2) row'));
      await run.attempt('(10)', async () => {
        rows.push('(10) first row');
        throw new Error('screenshot answered 503');
      });
      await run.attempt('(11)', async () => void rows.push('(11) row'));
      expect(rows).toEqual(['(2) row', '(10) first row', '(11) row']);
      expect(run.failed).toEqual([{ scenarios: '(10)', error: 'screenshot answered 503' }]);
      expect(run.notMeasured()).toEqual(['Not measured: (10), screenshot answered 503']);
      expect(logged).toEqual(['(10) did not complete: screenshot answered 503']);
    });
  });

  describe('When every group completes', () => {
    it('should name none', async () => {
      const run = scenarioAttempts(() => undefined);
      await run.attempt('(1)', async () => undefined);
      expect(run.failed).toEqual([]);
      expect(run.notMeasured()).toEqual([]);
    });
  });
});
