import { describe, expect, it } from 'vitest';
import { isPublicAddress } from './address-policy.js';

describe('isPublicAddress', () => {
  describe('When the address is in a loopback, private, link-local, shared or special range', () => {
    it.each([
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback /8'],
      ['10.1.2.3', 'RFC 1918'],
      ['172.16.0.1', 'RFC 1918'],
      ['172.31.255.255', 'RFC 1918'],
      ['192.168.1.1', 'RFC 1918'],
      ['169.254.169.254', 'link-local (cloud metadata)'],
      ['100.64.0.1', 'CGNAT'],
      ['100.100.100.200', 'CGNAT (Alibaba metadata)'],
      ['0.0.0.0', 'unspecified'],
      ['0.1.2.3', 'this network'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'broadcast'],
      ['240.0.0.1', 'reserved'],
      ['192.0.2.1', 'documentation'],
      ['198.18.0.1', 'benchmarking'],
      ['::', 'IPv6 unspecified'],
      ['::1', 'IPv6 loopback'],
      ['fd00:ec2::254', 'ULA (AWS IMDS v6)'],
      ['fc00::1', 'ULA'],
      ['fe80::1', 'IPv6 link-local'],
      ['fe80::1%eth0', 'IPv6 link-local with zone'],
      ['ff02::1', 'IPv6 multicast'],
      ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
      ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata, hex form'],
      ['::ffff:10.0.0.1', 'IPv4-mapped private'],
      ['::127.0.0.1', 'IPv4-compatible loopback'],
      ['::a9fe:a9fe', 'IPv4-compatible metadata'],
      ['64:ff9b::a9fe:a9fe', 'NAT64 embedding'],
      ['2002:7f00:1::', '6to4 embedding loopback'],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo'],
      ['2001:db8::1', 'IPv6 documentation'],
    ])('should refuse %s (%s)', (ip) => {
      expect(isPublicAddress(ip)).toBe(false);
    });
  });

  describe('When the string is not a strictly written IP', () => {
    it.each(['', 'localhost', 'example.com', '2130706433', '0x7f.1', '127.1', '0177.0.0.1', '1.2.3.4.5', '[::1]'])(
      'should refuse %j',
      (ip) => {
        expect(isPublicAddress(ip)).toBe(false);
      },
    );
  });

  describe('When the address is global unicast', () => {
    it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34'])(
      'should accept %s',
      (ip) => {
        expect(isPublicAddress(ip)).toBe(true);
      },
    );
  });
});
