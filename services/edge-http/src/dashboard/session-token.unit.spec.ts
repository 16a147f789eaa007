import { describe, expect, it } from 'vitest';
import { csrfTokenMatches, csrfTokenOf, isSessionTokenShaped, newSessionToken, openWithToken, sealWithToken, sessionIdOf } from './session-token.js';

describe('Dashboard session token', () => {
  describe('When a session is created', () => {
    it('should give a token whose store key and CSRF token are derived from it but do not contain it', () => {
      const token = newSessionToken();
      expect(isSessionTokenShaped(token)).toBe(true);
      expect(sessionIdOf(token)).toMatch(/^[0-9a-f]{64}$/);
      expect(sessionIdOf(token)).not.toContain(token);
      expect(csrfTokenOf(token)).not.toBe(token);
      expect(sessionIdOf(newSessionToken())).not.toBe(sessionIdOf(token));
    });
  });

  describe('When the access key is sealed with the token', () => {
    it('should open with the same token only, and never hold the key in clear', () => {
      const token = newSessionToken();
      const sealed = sealWithToken(token, 'ak_visible-key');
      expect(sealed).not.toContain('visible');
      expect(openWithToken(token, sealed)).toBe('ak_visible-key');
      expect(openWithToken(newSessionToken(), sealed)).toBeUndefined();
      expect(openWithToken(token, 'garbage')).toBeUndefined();
    });
  });

  describe('When a change carries a CSRF token', () => {
    it('should accept the session own token only', () => {
      const token = newSessionToken();
      expect(csrfTokenMatches(token, csrfTokenOf(token))).toBe(true);
      expect(csrfTokenMatches(token, csrfTokenOf(newSessionToken()))).toBe(false);
      expect(csrfTokenMatches(token, undefined)).toBe(false);
      expect(csrfTokenMatches(token, '')).toBe(false);
    });
  });
});
