import { describe, expect, it } from 'vitest';
import { ValidationError } from '@app/errors';
import { validateRenderParams } from './validate.js';

const problemsOf = (input: Record<string, unknown>) => {
  try {
    validateRenderParams('screenshot', { url: 'https://example.com/', ...input });
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return ((e as ValidationError).details ?? []).map((d) => d.parameter).sort();
  }
  return [];
};

describe('validateRenderParams: async, webhook and cache parameters', () => {
  describe('When they are given as query strings', () => {
    it('should coerce them to their types', () => {
      const { params } = validateRenderParams('pdf', {
        url: 'https://example.com/',
        async: 'true',
        webhook_url: 'https://hooks.example.com/in?x=1',
        webhook_signed: 'false',
        cache: '1',
        cache_ttl: '3600',
      });
      expect(params).toMatchObject({
        async: true,
        webhook_url: 'https://hooks.example.com/in?x=1',
        webhook_signed: false,
        cache: true,
        cache_ttl: 3600,
      });
    });
  });

  describe('When they are absent', () => {
    it('should take their documented defaults: not async, signed webhooks, no cache, a 7-day TTL', () => {
      const { params } = validateRenderParams('scrape', { url: 'https://example.com/' });
      expect(params.async).toBe(false);
      expect(params.webhook_signed).toBe(true);
      expect(params.webhook_url).toBeUndefined();
      expect(params.cache).toBe(false);
      expect(params.cache_ttl).toBe(604_800);
    });
  });

  describe('When cache_ttl is out of range or fractional', () => {
    it.each([0, 2_592_001, 1.5, 'soon'])('should refuse %s', (cache_ttl) => {
      expect(problemsOf({ cache_ttl })).toEqual(['cache_ttl']);
    });
    it('should accept the 30-day maximum', () => {
      expect(problemsOf({ cache_ttl: 2_592_000 })).toEqual([]);
    });
  });

  describe('When webhook_url is not an http(s) URL without credentials', () => {
    it.each(['not a url', 'ftp://example.com/x', 'file:///etc/passwd', 'https://user:pass@example.com/hook'])(
      'should refuse %s',
      (webhook_url) => {
        expect(problemsOf({ webhook_url })).toEqual(['webhook_url']);
      },
    );
  });
});
