import { isIPv6 } from 'node:net';
import type { LookupFn } from '../lookup.js';

export interface FakeLookup extends LookupFn {
  /** Every name asked for, in order. */
  calls: string[];
}

/** A resolver answering from a table; unknown names fail like ENOTFOUND. Never touches real DNS. */
export function fakeLookup(table: Record<string, string[]>): FakeLookup {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: isIPv6(address) ? (6 as const) : (4 as const) }));
  };
  return Object.assign(lookup, { calls });
}
