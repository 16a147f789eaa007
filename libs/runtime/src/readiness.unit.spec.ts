import { describe, expect, it } from 'vitest';
import { evaluateReadiness } from './readiness.js';

describe('evaluateReadiness', () => {
  describe('When every dependency answers', () => {
    it('should be ready, naming each as ok', async () => {
      expect(await evaluateReadiness({ nats: () => undefined, peer: async () => undefined })).toEqual({ ready: true, checks: { nats: 'ok', peer: 'ok' } });
    });
  });

  describe('When one dependency fails and another does not answer in time', () => {
    it('should not be ready, and say why for each', async () => {
      const report = await evaluateReadiness(
        {
          nats: () => {
            throw new Error('NATS is not connected');
          },
          peer: () => new Promise<void>(() => undefined),
          browsers: () => undefined,
        },
        50,
      );
      expect(report).toEqual({ ready: false, checks: { nats: 'NATS is not connected', peer: 'no answer within 50 ms', browsers: 'ok' } });
    });
  });
});
