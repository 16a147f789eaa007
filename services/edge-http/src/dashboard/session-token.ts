import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A dashboard session is a random token held only by the browser (HttpOnly cookie). The store keeps
 * what can be derived from it but not it: its hash as the record's key, and the access key sealed with
 * a key derived from it. A dump of the store gives neither a usable cookie nor an access key; the CSRF
 * token is an HMAC of the token, so it needs no storage either.
 */
export const newSessionToken = (): string => randomBytes(32).toString('base64url');

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
export const isSessionTokenShaped = (token: string): boolean => TOKEN_SHAPE.test(token);

/** The store key of a session: SHA-256 of its token, hex. */
export const sessionIdOf = (token: string): string => createHash('sha256').update(`session:${token}`).digest('hex');

export const csrfTokenOf = (token: string): string => createHmac('sha256', token).update('csrf').digest('base64url');

/** Constant-time check of a CSRF token sent with a change. */
export function csrfTokenMatches(token: string, sent: string | undefined): boolean {
  if (!sent) return false;
  const a = createHash('sha256').update(csrfTokenOf(token)).digest();
  const b = createHash('sha256').update(sent).digest();
  return timingSafeEqual(a, b);
}

const sealingKey = (token: string): Buffer => Buffer.from(hkdfSync('sha256', token, 'dashboard-session', 'access-key', 32));

export function sealWithToken(token: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(token), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url')).join('.');
}

/** The sealed text, or undefined when this token did not seal it. */
export function openWithToken(token: string, sealed: string): string | undefined {
  const [iv, tag, data] = sealed.split('.');
  if (!iv || !tag || data === undefined) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(token), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
