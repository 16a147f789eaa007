import { describe, expect, it } from 'vitest';
import { netGuardWebhook } from './net-guard-webhook.js';

// IP literals only: no DNS is needed to decide.
describe('netGuardWebhook', () => {
  describe('When private targets are not allowed', () => {
    const guard = netGuardWebhook({ allowPrivate: false });
    it.each([
      'http://93.184.215.14/hook',
      'https://127.0.0.1/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://169.254.169.254/latest',
      'https://10.0.0.1/',
      'https://2130706433/',
    ])('should refuse %s with target_not_allowed', async (url) => {
      await expect(guard.check(url)).rejects.toMatchObject({ code: 'target_not_allowed', details: [{ parameter: 'webhook_url' }] });
    });
    it('should accept https to a public address', async () => {
      await expect(guard.check('https://93.184.215.14/hook')).resolves.toBeUndefined();
    });
  });

  describe('When private targets are allowed (local use and tests)', () => {
    const guard = netGuardWebhook({ allowPrivate: true });
    it('should accept plain http to loopback only', async () => {
      await expect(guard.check('http://127.0.0.1:8080/hook')).resolves.toBeUndefined();
      await expect(guard.check('http://10.0.0.1/hook')).rejects.toMatchObject({ code: 'target_not_allowed' });
      await expect(guard.check('https://10.0.0.1/hook')).resolves.toBeUndefined();
    });
  });
});
