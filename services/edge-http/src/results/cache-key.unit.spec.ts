import { describe, expect, it } from 'vitest';
import { validateRenderParams } from '@app/render-params';
import { cacheKeyOf } from './cache-key.js';

const keyOf = (input: Record<string, unknown>, accountId = 'acc_1', operation: 'screenshot' | 'pdf' = 'screenshot') =>
  cacheKeyOf(accountId, operation, validateRenderParams(operation, input).params);

const base = { url: 'https://example.com/page' };

describe('cacheKeyOf', () => {
  describe('When two requests differ only in parameters that do not change the output', () => {
    it('should give them the same key', () => {
      const k = keyOf({ ...base, cache: true });
      expect(keyOf({ ...base, cache: true, cache_ttl: 60, async: true, webhook_url: 'https://h.example/x', webhook_signed: false })).toBe(k);
    });
  });

  describe('When they differ only in spelling of the same output', () => {
    it('should give them the same key (defaults applied, jpg = jpeg, key order irrelevant)', () => {
      const k = keyOf({ ...base, cache: true });
      expect(keyOf({ format: 'jpg', cache: true, ...base, image_quality: 80, viewport_width: 1280 })).toBe(k);
    });
  });

  describe('When an output-changing parameter differs', () => {
    it.each([{ format: 'png' }, { full_page: true }, { viewport_width: 800 }, { delay: 1 }, { url: 'https://example.com/other' }])(
      'should give a different key for %o',
      (change) => {
        expect(keyOf({ ...base, ...change })).not.toBe(keyOf(base));
      },
    );
  });

  describe('When the account or the operation differs', () => {
    it('should give a different key', () => {
      expect(keyOf(base, 'acc_2')).not.toBe(keyOf(base, 'acc_1'));
      expect(keyOf(base, 'acc_1', 'pdf')).not.toBe(keyOf(base, 'acc_1', 'screenshot'));
    });
  });

  it('should be a hex SHA-256', () => {
    expect(keyOf(base)).toMatch(/^[0-9a-f]{64}$/);
  });
});
