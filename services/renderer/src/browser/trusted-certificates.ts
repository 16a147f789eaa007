import { createHash, X509Certificate } from 'node:crypto';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * The base64 SHA-256 of the public key (SPKI) of every certificate in a PEM bundle: what Chromium's
 * `--ignore-certificate-errors-spki-list` takes. A site whose certificate chain holds one of these keys
 * is trusted by the browser (an intranet CA, a self-signed site). Throws on a certificate it cannot read.
 */
export function spkiHashes(pem: string): string[] {
  return (pem.match(PEM_CERTIFICATE) ?? []).map((block) =>
    createHash('sha256')
      .update(new X509Certificate(block).publicKey.export({ type: 'spki', format: 'der' }))
      .digest('base64'),
  );
}
