import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateAccessKey, hashKey } from '../domain/account/keys.js';
import { aesGcmSecretBox } from './key-material.js';

describe('Key material', () => {
  describe('When a secret is sealed', () => {
    it('should open to the same secret and never contain it in clear', () => {
      const box = aesGcmSecretBox(randomBytes(32));
      const sealed = box.seal('sk_very-secret');
      expect(sealed).not.toContain('very-secret');
      expect(box.open(sealed)).toBe('sk_very-secret');
    });

    it('should refuse to open with another master key', () => {
      const sealed = aesGcmSecretBox(randomBytes(32)).seal('sk_x');
      expect(() => aesGcmSecretBox(randomBytes(32)).open(sealed)).toThrow();
    });
  });

  describe('When keys are generated', () => {
    it('should be unique, prefixed and hashed to 64 hex characters', () => {
      const a = generateAccessKey();
      const b = generateAccessKey();
      expect(a).not.toBe(b);
      expect(a.startsWith('ak_')).toBe(true);
      expect(hashKey(a)).toMatch(/^[0-9a-f]{64}$/);
    });
  });
});
