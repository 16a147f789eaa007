import { describe, expect, it } from 'vitest';
import { resultPolicyHeaders } from './result-policy.js';

describe('resultPolicyHeaders', () => {
  it.each(['text/html; charset=utf-8', 'TEXT/HTML', 'application/xhtml+xml', 'image/svg+xml', 'text/xml', 'application/xml; charset=utf-8'])(
    'should sandbox %s, markup a browser would run',
    (type) => expect(resultPolicyHeaders(type)).toEqual({ 'content-security-policy': 'sandbox' }),
  );

  it.each(['image/png', 'image/webp', 'application/pdf', 'video/mp4', 'text/markdown; charset=utf-8', 'text/htmlx', 'application/json'])(
    'should leave %s as it is',
    (type) => expect(resultPolicyHeaders(type)).toEqual({}),
  );
});
