import { connect, type LookupFunction, type Socket } from 'node:net';

export interface DialOptions {
  connectTimeoutMs: number;
}

/** Any attempt to resolve a name while dialing is a bug: the caller must pass validated IPs only. */
const refuseLookup: LookupFunction = (hostname, _options, callback) => {
  callback(Object.assign(new Error(`refusing to resolve ${hostname} while dialing a pinned address`), { code: 'ENOTFOUND' }), '', 4);
};

/**
 * Opens a TCP connection to the first of `addresses` (validated IPs) that accepts, in order.
 * Never resolves a name. The returned socket has no error listener yet: attach one at once.
 */
export async function dialPinned(addresses: readonly string[], port: number, opts: DialOptions): Promise<Socket> {
  let lastError: unknown = new Error('no address to dial');
  for (const address of addresses) {
    try {
      return await dialOne(address, port, opts.connectTimeoutMs);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

function dialOne(address: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port, lookup: refuseLookup });
    const timer = setTimeout(() => socket.destroy(new Error('connect timeout')), timeoutMs);
    const onError = (err: Error) => {
      clearTimeout(timer);
      reject(err);
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve(socket);
    });
  });
}
