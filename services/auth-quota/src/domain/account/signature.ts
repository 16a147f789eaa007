import { createHmac, timingSafeEqual } from 'node:crypto';

/** Lowercase hex HMAC-SHA256 keyed with the account's secret key. */
export const hmacHex = (secretKey: string, payload: string | Uint8Array): string =>
  createHmac('sha256', secretKey).update(payload).digest('hex');

/** Constant-time comparison of two hex signatures (lengths are equalised by hashing first). */
export function signaturesMatch(expectedHex: string, givenHex: string): boolean {
  const a = createHmac('sha256', 'cmp').update(expectedHex).digest();
  const b = createHmac('sha256', 'cmp').update(givenHex.toLowerCase()).digest();
  return timingSafeEqual(a, b);
}

/**
 * The query string exactly as sent, with the `signature` parameter removed and the order kept
 * (spec/decisions.md, signed requests).
 */
export function unsignedQuery(rawQuery: string): string {
  return rawQuery
    .split('&')
    .filter((pair) => pair !== '' && !pair.startsWith('signature='))
    .join('&');
}

/**
 * Signatures protect the parameters of renders (links shared in pages), so an account that requires
 * them is asked for one on the render routes only; usage, devices, tasks and render status are
 * authenticated by the key alone (the official clients never sign them).
 */
export const signatureApplies = (usage: string): boolean => usage === 'render';
