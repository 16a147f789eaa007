import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { signDelivery } from './signature.js';

const SECRET = `sk_${randomBytes(24).toString('base64url')}`;

/** A receiver's plain check of X-Service-Signature: hex HMAC-SHA256 of the raw body, constant-time. */
const plainHmacOk = (secret: string, body: string, signature: string) => {
  const expected = Buffer.from(createHmac('sha256', secret).update(body).digest('hex'));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
};

const standardOk = (secret: string, body: string, headers: Record<string, string>) => {
  try {
    new Webhook(secret, { format: 'raw' }).verify(body, headers);
    return true;
  } catch {
    return false;
  }
};

const nowSeconds = () => Math.floor(Date.now() / 1000);
const randomBody = () =>
  JSON.stringify({ id: randomBytes(8).toString('hex'), status: 'succeeded', note: randomBytes(randomInt(0, 200)).toString('base64'), n: randomInt(1e9) });

describe('signDelivery', () => {
  describe('When 1,000 random payloads are signed', () => {
    it('should verify every one with the Standard Webhooks library and with a plain HMAC check', () => {
      let standard = 0;
      let plain = 0;
      for (let i = 0; i < 1_000; i++) {
        const body = randomBody();
        const headers = signDelivery(SECRET, `render_${i}`, nowSeconds(), body);
        if (standardOk(SECRET, body, { ...headers })) standard++;
        if (plainHmacOk(SECRET, body, headers['x-service-signature'])) plain++;
      }
      expect({ standard, plain }).toEqual({ standard: 1_000, plain: 1_000 });
    });
  });

  describe('When any single byte of the body, the id or the timestamp is changed', () => {
    it('should fail both checks', () => {
      const body = randomBody();
      const ts = nowSeconds();
      const headers = signDelivery(SECRET, 'abc123', ts, body);
      const flip = (s: string, i: number) => s.slice(0, i) + String.fromCharCode(s.charCodeAt(i) ^ 1) + s.slice(i + 1);
      let passed = 0;
      for (let i = 0; i < body.length; i++) {
        const tampered = flip(body, i);
        if (standardOk(SECRET, tampered, { ...headers })) passed++;
        if (plainHmacOk(SECRET, tampered, headers['x-service-signature'])) passed++;
      }
      for (let i = 0; i < 'abc123'.length; i++) {
        if (standardOk(SECRET, body, { ...headers, 'webhook-id': flip('abc123', i) })) passed++;
      }
      if (standardOk(SECRET, body, { ...headers, 'webhook-timestamp': String(ts - 1) })) passed++;
      expect(passed).toBe(0);
    });
  });

  describe('When the receiver holds another secret', () => {
    it('should fail both checks', () => {
      const body = randomBody();
      const headers = signDelivery(SECRET, 'abc', nowSeconds(), body);
      const other = `sk_${randomBytes(24).toString('base64url')}`;
      expect(standardOk(other, body, { ...headers })).toBe(false);
      expect(plainHmacOk(other, body, headers['x-service-signature'])).toBe(false);
    });
  });

  describe('When the timestamp is outside the verifier tolerance', () => {
    it('should pass at now-299 s and fail at now-301 s', () => {
      const body = randomBody();
      expect(standardOk(SECRET, body, { ...signDelivery(SECRET, 'a', nowSeconds() - 299, body) })).toBe(true);
      expect(standardOk(SECRET, body, { ...signDelivery(SECRET, 'a', nowSeconds() - 301, body) })).toBe(false);
    });
  });

  it('should give the headers of the decisions', () => {
    const h = signDelivery(SECRET, 'id1', 1_700_000_000, '{}');
    expect(h['webhook-id']).toBe('id1');
    expect(h['webhook-timestamp']).toBe('1700000000');
    expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(h['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
  });
});
