import { describe, expect, it, vi } from 'vitest';
import { errors } from '@app/errors';
import { routeFor } from './route.js';
import { renderParams } from './testing/test-params.js';

const checked = (address: string) =>
  vi.fn(async (raw: string) => ({ url: new URL(raw), addresses: [address] }));

describe('routeFor', () => {
  describe('When no proxy or ip_location is given', () => {
    it('should go direct', async () => {
      expect(await routeFor(renderParams(), { allowPrivate: false, ipLocationProxies: {} })).toEqual({});
    });
  });

  describe('When the caller gives an http proxy with credentials', () => {
    it('should check its host and keep the checked addresses and the credentials for its relay', async () => {
      const check = checked('203.0.113.7');
      const route = await routeFor(renderParams({ proxy: 'http://me:s%40cret@proxy.example:3128' }), { allowPrivate: false, ipLocationProxies: {} }, check);
      expect(check).toHaveBeenCalledWith('http://me:s%40cret@proxy.example:3128', { parameter: 'proxy', allowPrivate: false });
      expect(route).toEqual({ proxy: { url: new URL('http://me:s%40cret@proxy.example:3128'), addresses: ['203.0.113.7'] } });
    });
  });

  describe('When the proxy host is refused by the SSRF check', () => {
    it('should fail with the check error', async () => {
      const check = vi.fn(async () => {
        throw errors.targetNotAllowed('proxy', 'the URL must point to a public internet address');
      });
      await expect(routeFor(renderParams({ proxy: 'http://10.0.0.1:8080' }), { allowPrivate: false, ipLocationProxies: {} }, check)).rejects.toMatchObject({
        code: 'target_not_allowed',
        details: [{ parameter: 'proxy' }],
      });
    });
  });

  describe('When ip_location names a country', () => {
    const routing = { allowPrivate: false, ipLocationProxies: { de: 'http://u:p@de.proxy:8000', us: 'https://us.proxy:9000' } };
    it('should route through its configured proxy, eu through an EU one', async () => {
      expect((await routeFor(renderParams({ ip_location: 'us' }), routing)).proxy?.url.href).toBe('https://us.proxy:9000/');
      expect((await routeFor(renderParams({ ip_location: 'eu' }), routing)).proxy).toEqual({ url: new URL('http://u:p@de.proxy:8000') });
    });

    it('should be a 400 naming ip_location where none is configured', async () => {
      await expect(routeFor(renderParams({ ip_location: 'jp' }), routing)).rejects.toMatchObject({
        code: 'invalid_parameter',
        details: [{ parameter: 'ip_location', message: expect.stringContaining('jp') }],
      });
    });
  });
});
