import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** `::/96` minus `::` and `::1`: deprecated IPv4-compatible IPv6, which ipaddr.js classes as unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * True only for a globally routable unicast address. Everything else — loopback, RFC 1918, link-local
 * (cloud metadata), CGNAT, unspecified, multicast, broadcast, reserved, ULA, documentation, NAT64/6to4/Teredo
 * and anything that is not a strictly written IP — is not public. IPv4-mapped IPv6 is judged as its IPv4.
 */
export function isPublicAddress(ip: string): boolean {
  if (isIP(ip) === 0) return false;
  let addr: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) addr = v6.toIPv4Address();
    else if (v6.match(IPV4_COMPATIBLE)) return false;
  }
  return addr.range() === 'unicast';
}
