import { isIP } from 'node:net';
import { isPublicAddress } from './address-policy.js';
import { systemLookup, type LookupFn } from './lookup.js';

export type BlockReason = 'localhost_name' | 'non_public_address' | 'invalid_address';

export type TargetDecision =
  | { kind: 'allowed'; addresses: string[] }
  | { kind: 'blocked'; reason: BlockReason }
  | { kind: 'unresolved' };

export interface HostPolicyOptions {
  allowPrivate: boolean;
  lookup?: LookupFn | undefined;
}

/**
 * Decides whether a host (a WHATWG-canonical URL hostname, IPv6 possibly in brackets) may be contacted,
 * and returns the addresses to dial. Fails closed: one non-public address blocks the whole host.
 * The returned addresses are the only ones a caller may connect to (pinning; never resolve again).
 */
export async function resolveTarget(hostname: string, opts: HostPolicyOptions): Promise<TargetDecision> {
  const host = stripBrackets(hostname);
  if (!opts.allowPrivate && isLocalhostName(host)) return { kind: 'blocked', reason: 'localhost_name' };

  const addresses = isIP(host) !== 0 ? [host] : await lookupAll(host, opts.lookup ?? systemLookup);
  if (addresses === undefined || addresses.length === 0) return { kind: 'unresolved' };
  if (addresses.some((a) => isIP(a) === 0)) return { kind: 'blocked', reason: 'invalid_address' };
  if (!opts.allowPrivate && !addresses.every(isPublicAddress)) return { kind: 'blocked', reason: 'non_public_address' };
  return { kind: 'allowed', addresses };
}

/** `localhost`, `localhost.`, `*.localhost` (RFC 6761), whatever the resolver would say. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

async function lookupAll(host: string, lookup: LookupFn): Promise<string[] | undefined> {
  if (host === '') return undefined;
  try {
    return (await lookup(host)).map((entry) => entry.address);
  } catch {
    return undefined;
  }
}
