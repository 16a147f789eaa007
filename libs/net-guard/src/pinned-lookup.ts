import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/**
 * A `lookup` for `http.request`, `net.connect`, `tls.connect` or undici's `connect` options that answers with
 * addresses already validated by `checkTargetUrl`, so the connection goes to a checked IP while the Host
 * header and TLS SNI keep the name (no second resolution, no DNS rebinding window).
 */
export function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries: LookupAddress[] = addresses
    .filter((address) => isIP(address) !== 0)
    .map((address) => ({ address, family: isIP(address) }));
  return (hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    const matching = entries.filter((entry) => family === 0 || entry.family === family);
    const first = matching[0];
    if (first === undefined) {
      const err = Object.assign(new Error(`no validated address for ${hostname}`), { code: 'ENOTFOUND' });
      callback(err, options.all ? [] : '', 0);
    } else if (options.all) {
      callback(null, matching);
    } else {
      callback(null, first.address, first.family);
    }
  };
}
