import { describe, expect, it } from 'vitest';
import { ConfigError, envBool, envInt, envAddress, loadConfig, z } from './index.js';

const schema = z.object({
  PORT: envInt(8443, 0, 65535),
  ALLOW_PRIVATE_TARGETS: envBool(false),
  AUTH_QUOTA_ADDR: envAddress('127.0.0.1:50051'),
});

describe('loadConfig', () => {
  describe('When the environment is empty', () => {
    it('should apply every default', () => {
      expect(loadConfig(schema, {})).toEqual({
        PORT: 8443,
        ALLOW_PRIVATE_TARGETS: false,
        AUTH_QUOTA_ADDR: '127.0.0.1:50051',
      });
    });
  });

  describe('When several variables are bad', () => {
    it('should name every one of them in one error', () => {
      let error: unknown;
      try {
        loadConfig(schema, { PORT: 'abc', ALLOW_PRIVATE_TARGETS: 'maybe', AUTH_QUOTA_ADDR: 'nope' });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const vars = (error as ConfigError).problems.map((p) => p.variable).sort();
      expect(vars).toEqual(['ALLOW_PRIVATE_TARGETS', 'AUTH_QUOTA_ADDR', 'PORT']);
      expect((error as Error).message).toContain('PORT');
    });
  });

  describe('When a boolean is given as 1', () => {
    it('should read it as true', () => {
      expect(loadConfig(schema, { ALLOW_PRIVATE_TARGETS: '1' }).ALLOW_PRIVATE_TARGETS).toBe(true);
    });
  });
});
