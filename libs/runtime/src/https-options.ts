import { constants } from 'node:crypto';
import { DEFAULT_CIPHERS, type TlsOptions } from 'node:tls';

/**
 * TLS 1.3 suites, AES-128-GCM first: as safe as AES-256-GCM for TLS (both are AEADs; 128-bit keys match
 * the key exchange's strength) and cheaper per byte, which is most of what a large result costs to send.
 */
const TLS13_SUITES = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];
/** Then TLS 1.2's, as Node orders them (AES-128-GCM first there too). */
const CIPHERS = [...TLS13_SUITES, ...DEFAULT_CIPHERS.split(':').filter((suite) => !suite.startsWith('TLS_'))].join(':');

/**
 * Options of the public HTTPS server: TLS 1.2 at least (whatever the process default), and the server's
 * own order of cipher suites (AES-128-GCM first; TLS 1.2 as Node orders it, AES-128-GCM first too),
 * except for a client that puts ChaCha20-Poly1305 first (a device without AES instructions), which gets it.
 */
export function httpsServerOptions(pair: { key: Buffer | string; cert: Buffer | string }): TlsOptions {
  return {
    key: pair.key,
    cert: pair.cert,
    minVersion: 'TLSv1.2',
    ciphers: CIPHERS,
    honorCipherOrder: true,
    secureOptions: constants.SSL_OP_PRIORITIZE_CHACHA,
  };
}
