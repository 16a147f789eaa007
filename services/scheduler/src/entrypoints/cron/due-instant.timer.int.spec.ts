import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@app/logging';
import { shutdownTelemetry, startTelemetry, trace, withSpan } from '@app/telemetry';
import { dueInstantTimer } from './due-instant.timer.js';

// With the service's telemetry running (spans not exported, their context propagated, as in production).
beforeAll(() => void startTelemetry('due-instant-timer-test'));
afterAll(() => shutdownTelemetry());

const logger = createLogger('test', { level: 'silent' });

describe('The due-instant timer', () => {
  describe('When it is armed inside the span of one run’s preparation', () => {
    it('should fire at the instant outside that trace', async () => {
      const fired = new Promise<string | undefined>((resolve) => {
        const timer = dueInstantTimer({
          logger,
          fire: async () => {
            resolve(trace.getActiveSpan()?.spanContext().traceId);
            timer.stop();
          },
        });
        void withSpan('prepare task run', {}, async (span) => {
          expect(trace.getActiveSpan()?.spanContext().traceId).toBe(span.spanContext().traceId);
          timer.arm(Date.now() + 20);
        });
      });
      expect(await fired).toBeUndefined();
    });
  });
});
