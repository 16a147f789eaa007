import { createHash, randomBytes } from 'node:crypto';

/** Access keys identify an account; secret keys sign requests and webhooks. Both are shown once. */
export const generateAccessKey = (): string => `ak_${randomBytes(24).toString('base64url')}`;
export const generateSecretKey = (): string => `sk_${randomBytes(32).toString('base64url')}`;

/** Keys are long random strings, so a fast SHA-256 is the right hash: it allows indexed lookup. */
export const hashKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');
