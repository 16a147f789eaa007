import { describe, expect, it } from 'vitest';
import { checkWebhookUrl } from './webhook-policy.js';
import { fakeLookup } from './testing/fake-lookup.js';

const lookup = fakeLookup({
  'hooks.example.com': ['93.184.216.34'],
  'internal.example.com': ['10.0.0.7'],
  localhost: ['127.0.0.1'],
});

const codeOf = (p: Promise<unknown>) => p.then(() => 'accepted', (e: { code?: string }) => e.code ?? 'error');

describe('checkWebhookUrl', () => {
  describe('When private targets are not allowed', () => {
    it.each([
      ['https://hooks.example.com/in', 'accepted'],
      ['http://hooks.example.com/in', 'target_not_allowed'],
      ['https://user:pass@hooks.example.com/in', 'target_not_allowed'],
      ['https://internal.example.com/in', 'target_not_allowed'],
      ['https://127.0.0.1/in', 'target_not_allowed'],
      ['https://[::ffff:127.0.0.1]/in', 'target_not_allowed'],
    ])('should answer %s with %s', async (url, expected) => {
      expect(await codeOf(checkWebhookUrl(url, { parameter: 'webhook_url', allowPrivate: false, lookup }))).toBe(expected);
    });
  });

  describe('When private targets are allowed (local use and tests)', () => {
    it.each([
      ['http://127.0.0.1:9000/in', 'accepted'],
      ['https://internal.example.com/in', 'accepted'],
      ['http://internal.example.com/in', 'target_not_allowed'],
      ['http://hooks.example.com/in', 'target_not_allowed'],
    ])('should answer %s with %s', async (url, expected) => {
      expect(await codeOf(checkWebhookUrl(url, { parameter: 'webhook_url', allowPrivate: true, lookup }))).toBe(expected);
    });
  });
});
