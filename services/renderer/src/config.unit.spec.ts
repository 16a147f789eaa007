import { describe, expect, it } from 'vitest';
import { parseConfig } from './config.js';

describe('renderer parseConfig', () => {
  describe('When nothing about GPU or countries is set', () => {
    it('should launch without GPU flags and know no country proxy', () => {
      const config = parseConfig({});
      expect(config.pool.gpu).toBe(false);
      expect(config.ipLocationProxies).toEqual({});
    });
  });

  describe('When RENDERER_GPU and IP_LOCATION_PROXIES are set', () => {
    it('should read them', () => {
      const config = parseConfig({ RENDERER_GPU: '1', IP_LOCATION_PROXIES: '{"us":"http://u:p@us.proxy:8080","de":"https://de.proxy"}' });
      expect(config.pool.gpu).toBe(true);
      expect(config.ipLocationProxies).toEqual({ us: 'http://u:p@us.proxy:8080', de: 'https://de.proxy' });
    });
  });

  describe('When IP_LOCATION_PROXIES is not a map of http(s) proxy URLs', () => {
    it.each(['not json', '["http://a"]', '{"us":"socks5://a:1"}', '{"us":42}'])('should refuse %s naming the variable', (value) => {
      expect(() => parseConfig({ IP_LOCATION_PROXIES: value })).toThrow(/IP_LOCATION_PROXIES/);
    });
  });
});
