import { describe, expect, it } from 'vitest';
import { ConfigError } from '@app/config';
import { parseConfig } from './config.js';
import { MAX_RENDERS_IN_FLIGHT } from './domain/limits/account-limits.js';

describe('auth-quota parseConfig', () => {
  describe('When a plan allows more renders in flight than one account limits value can hold', () => {
    it('should refuse to start, naming the variable and the largest value allowed', () => {
      const tooMany = String(MAX_RENDERS_IN_FLIGHT + 1);
      expect(() => parseConfig({ PLAN_SCALE_RENDERS_IN_FLIGHT: tooMany })).toThrow(ConfigError);
      expect(() => parseConfig({ PLAN_SCALE_RENDERS_IN_FLIGHT: tooMany })).toThrow(
        new RegExp(`PLAN_SCALE_RENDERS_IN_FLIGHT.*${MAX_RENDERS_IN_FLIGHT}`),
      );
    });
  });

  describe('When a plan allows exactly the largest number of renders in flight', () => {
    it('should take it', () => {
      const config = parseConfig({ PLAN_SCALE_RENDERS_IN_FLIGHT: String(MAX_RENDERS_IN_FLIGHT) });
      expect(config.planLimits.scale.rendersInFlight).toBe(MAX_RENDERS_IN_FLIGHT);
    });
  });
});
