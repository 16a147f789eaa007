import { errors } from '@app/errors';
import { resolveTarget, type BlockReason } from './host-policy.js';
import type { LookupFn } from './lookup.js';

export interface CheckTargetOptions {
  /** Request parameter named in the error (e.g. `url`, `webhook_url`). */
  parameter: string;
  /** Self-hosted installs may render intranet pages: skips the address-class check only. */
  allowPrivate: boolean;
  lookup?: LookupFn | undefined;
  /** Allowed schemes, with or without the colon; default http and https. */
  schemes?: string[] | undefined;
}

export interface CheckedTarget {
  url: URL;
  /** The validated addresses of the host; connect to these only. */
  addresses: string[];
}

const DEFAULT_SCHEMES = ['http:', 'https:'];

const REFUSALS: Record<BlockReason, string> = {
  localhost_name: 'the URL must not point to localhost',
  non_public_address: 'the URL must point to a public internet address',
  invalid_address: 'the URL must point to a public internet address',
};

/**
 * Validates a caller-supplied target URL: WHATWG parsing (so numeric, hex and octal hosts become the IP they
 * mean), scheme allow-list, then the host policy on every resolved address.
 * Throws `target_not_allowed` or `name_not_resolved`.
 */
export async function checkTargetUrl(raw: string, opts: CheckTargetOptions): Promise<CheckedTarget> {
  const url = parseUrl(raw, opts.parameter);
  const schemes = (opts.schemes ?? DEFAULT_SCHEMES).map(normalizeScheme);
  if (!schemes.includes(url.protocol)) {
    throw errors.targetNotAllowed(opts.parameter, `the URL scheme must be one of ${schemes.map((s) => s.slice(0, -1)).join(', ')}`);
  }

  if (url.hostname === '') throw errors.targetNotAllowed(opts.parameter, 'the URL must have a host');

  const decision = await resolveTarget(url.hostname, { allowPrivate: opts.allowPrivate, lookup: opts.lookup });
  switch (decision.kind) {
    case 'allowed':
      return { url, addresses: decision.addresses };
    case 'unresolved':
      throw errors.nameNotResolved(opts.parameter, url.hostname);
    case 'blocked':
      throw errors.targetNotAllowed(opts.parameter, REFUSALS[decision.reason]);
  }
}

function parseUrl(raw: string, parameter: string): URL {
  try {
    return new URL(raw);
  } catch {
    throw errors.targetNotAllowed(parameter, 'the URL is not a valid absolute URL');
  }
}

function normalizeScheme(scheme: string): string {
  const lower = scheme.toLowerCase();
  return lower.endsWith(':') ? lower : `${lower}:`;
}
