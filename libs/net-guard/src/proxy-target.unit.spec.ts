import { describe, expect, it } from 'vitest';
import { parseAbsoluteForm, parseConnectAuthority, portOf } from './proxy-target.js';

describe('parseConnectAuthority', () => {
  describe('When the host is written in a numeric, hex, octal or short form', () => {
    it.each([
      ['2852039166:443', '169.254.169.254'],
      ['0xa9fea9fe:443', '169.254.169.254'],
      ['0251.0376.0251.0376:443', '169.254.169.254'],
      ['127.1:80', '127.0.0.1'],
      ['[::ffff:127.0.0.1]:443', '[::ffff:7f00:1]'],
      ['LOCALHOST:443', 'localhost'],
    ])('should canonicalise %s to %s', (authority, hostname) => {
      expect(parseConnectAuthority(authority)?.hostname).toBe(hostname);
    });
  });

  describe('When the authority is well formed', () => {
    it('should keep the port, including the default ports', () => {
      expect(parseConnectAuthority('example.com:443')).toEqual({ hostname: 'example.com', port: 443 });
      expect(parseConnectAuthority('example.com:80')).toEqual({ hostname: 'example.com', port: 80 });
      expect(parseConnectAuthority('[2001:4860::8888]:8443')).toEqual({ hostname: '[2001:4860::8888]', port: 8443 });
    });
  });

  describe('When the authority is malformed', () => {
    it.each(['example.com', 'example.com:0', 'example.com:65536', 'user@example.com:443', 'a/b:443', '::1:443', ':443', 'http://a:443', 'a b:443', '[zz]:443'])(
      'should reject %j',
      (authority) => {
        expect(parseConnectAuthority(authority)).toBeUndefined();
      },
    );
  });
});

describe('parseAbsoluteForm', () => {
  describe('When the request target is absolute', () => {
    it('should parse and canonicalise it', () => {
      const url = parseAbsoluteForm('http://2130706433:8080/a?b');
      expect(url?.hostname).toBe('127.0.0.1');
      expect(url && portOf(url)).toBe(8080);
      expect(portOf(new URL('http://x/'))).toBe(80);
      expect(portOf(new URL('https://x/'))).toBe(443);
    });
  });

  describe('When the request target is in origin or authority form', () => {
    it.each(['/', '/path', 'example.com:443', '*', 'http:/x', 'file:///etc/passwd'])('should reject %j', (target) => {
      expect(parseAbsoluteForm(target)).toBeUndefined();
    });
  });
});
