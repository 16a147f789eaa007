import { describe, expect, it } from 'vitest';
import { AppError } from '@app/errors';
import { fakeLookup } from './testing/fake-lookup.js';
import { checkTargetUrl } from './url-policy.js';

const PUBLIC_IP = '93.184.216.34';

const names = () =>
  fakeLookup({
    'public.test': [PUBLIC_IP],
    'public6.test': ['2606:2800:220:1:248:1893:25c8:1946'],
    'rebind.test': ['127.0.0.1'],
    'mixed.test': [PUBLIC_IP, '10.0.0.5'],
    'metadata.test': ['::ffff:169.254.169.254'],
    'garbage.test': ['not-an-ip'],
    'empty.test': [],
    localhost: ['127.0.0.1', '::1'],
  });

async function refusal(raw: string, allowPrivate = false): Promise<AppError> {
  try {
    await checkTargetUrl(raw, { parameter: 'url', allowPrivate, lookup: names() });
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error(`expected ${raw} to be refused`);
}

describe('checkTargetUrl', () => {
  describe('When the host is, or encodes, a non-public IP literal', () => {
    it.each([
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://2852039166/',
      'http://0xa9fea9fe/',
      'http://0251.0376.0251.0376/',
      'http://127.1/',
      'http://0.0.0.0:80/',
      'http://[::]:80/',
      'http://[::1]/',
      'http://[fd00:ec2::254]/',
      'http://100.100.100.200/',
      'https://10.0.0.1/',
      'http://user:pass@127.0.0.1/',
    ])('should refuse %s with target_not_allowed, without resolving anything', async (raw) => {
      const lookup = names();
      await expect(checkTargetUrl(raw, { parameter: 'url', allowPrivate: false, lookup })).rejects.toMatchObject({
        code: 'target_not_allowed',
        details: [{ parameter: 'url' }],
      });
      expect(lookup.calls).toEqual([]);
    });
  });

  describe('When the host is a localhost name', () => {
    it.each(['http://localhost/', 'http://LOCALHOST:8080/', 'http://localhost./', 'http://foo.localhost/', 'http://a.b.localhost../'])(
      'should refuse %s before any lookup',
      async (raw) => {
        const lookup = names();
        await expect(checkTargetUrl(raw, { parameter: 'url', allowPrivate: false, lookup })).rejects.toMatchObject({
          code: 'target_not_allowed',
        });
        expect(lookup.calls).toEqual([]);
      },
    );
  });

  describe('When a public-looking name resolves to a non-public address', () => {
    it.each([
      ['http://rebind.test/', 'only to 127.0.0.1'],
      ['http://mixed.test/', 'to one public and one private address'],
      ['https://metadata.test/', 'to IPv4-mapped metadata'],
      ['http://garbage.test/', 'to something that is not an IP'],
    ])('should refuse %s (%s) without naming the address', async (raw) => {
      const err = await refusal(raw);
      expect(err.code).toBe('target_not_allowed');
      expect(err.message).not.toMatch(/127\.0\.0\.1|10\.0\.0\.5|169\.254|ffff|not-an-ip/);
    });
  });

  describe('When the scheme is not http or https', () => {
    it.each([
      'file:///etc/passwd',
      'FILE:///etc/passwd',
      'File:///etc/passwd',
      'view-source:http://127.0.0.1/',
      'ftp://127.0.0.1/',
      'ftp://public.test/',
      'chrome://version',
      'data:text/html,x',
      'javascript:alert(1)',
      'ws://public.test/',
      'blob:http://public.test/uuid',
    ])('should refuse %s with target_not_allowed', async (raw) => {
      expect((await refusal(raw)).code).toBe('target_not_allowed');
      expect((await refusal(raw, true)).code).toBe('target_not_allowed');
    });
  });

  describe('When the string is not an absolute URL', () => {
    it.each(['', 'example.com', '/relative', 'http://', 'http://[::1/'])('should refuse %j with target_not_allowed', async (raw) => {
      expect((await refusal(raw)).code).toBe('target_not_allowed');
    });
  });

  describe('When the name does not resolve', () => {
    it.each(['http://nxdomain.test/', 'http://empty.test/'])('should refuse %s with name_not_resolved', async (raw) => {
      expect((await refusal(raw)).code).toBe('name_not_resolved');
      expect((await refusal(raw, true)).code).toBe('name_not_resolved');
    });
  });

  describe('When the host resolves only to public addresses', () => {
    it('should return the parsed URL and the addresses to pin, without contacting them', async () => {
      const lookup = names();
      const checked = await checkTargetUrl('https://PUBLIC.test:8443/a?b=1', { parameter: 'url', allowPrivate: false, lookup });
      expect(checked.url.href).toBe('https://public.test:8443/a?b=1');
      expect(checked.addresses).toEqual([PUBLIC_IP]);
      expect(lookup.calls).toEqual(['public.test']);
    });

    it('should accept a public IPv6 name, a public IP literal and userinfo pointing nowhere special', async () => {
      const opts = { parameter: 'url', allowPrivate: false, lookup: names() };
      expect((await checkTargetUrl('http://public6.test/', opts)).addresses).toEqual(['2606:2800:220:1:248:1893:25c8:1946']);
      expect((await checkTargetUrl(`http://${PUBLIC_IP}/`, opts)).addresses).toEqual([PUBLIC_IP]);
      const withUserinfo = await checkTargetUrl('http://169.254.169.254@public.test/', opts);
      expect(withUserinfo.url.hostname).toBe('public.test');
      expect(withUserinfo.addresses).toEqual([PUBLIC_IP]);
    });
  });

  describe('When private targets are allowed', () => {
    it('should accept loopback literals and names, still pinning the resolved addresses', async () => {
      const opts = { parameter: 'url', allowPrivate: true, lookup: names() };
      expect((await checkTargetUrl('http://127.0.0.1:3000/', opts)).addresses).toEqual(['127.0.0.1']);
      expect((await checkTargetUrl('http://[::1]/', opts)).addresses).toEqual(['::1']);
      expect((await checkTargetUrl('http://rebind.test/', opts)).addresses).toEqual(['127.0.0.1']);
      expect((await checkTargetUrl('http://localhost/', opts)).addresses).toEqual(['127.0.0.1', '::1']);
    });

    it('should still refuse a resolver answer that is not an IP', async () => {
      expect((await refusal('http://garbage.test/', true)).code).toBe('target_not_allowed');
    });
  });

  describe('When other schemes are configured', () => {
    it('should accept them case-insensitively, with or without the colon, and apply the address check', async () => {
      const opts = { parameter: 'webhook_url', allowPrivate: false, lookup: names(), schemes: ['HTTPS'] };
      expect((await checkTargetUrl('https://public.test/hook', opts)).addresses).toEqual([PUBLIC_IP]);
      await expect(checkTargetUrl('http://public.test/hook', opts)).rejects.toMatchObject({ code: 'target_not_allowed' });
      await expect(checkTargetUrl('https://rebind.test/hook', opts)).rejects.toMatchObject({
        code: 'target_not_allowed',
        details: [{ parameter: 'webhook_url' }],
      });
    });
  });
});
