import { describe, expect, it } from 'vitest';
import { decodeJson, encodeJson } from './json-codec.js';

describe('json codec', () => {
  describe('When a value holds Dates at any depth', () => {
    it('should give them back as Dates', () => {
      const value = { at: new Date('2026-03-29T01:30:00.000Z'), list: [new Date(0), { deep: new Date(1) }], n: 1 };

      expect(decodeJson(encodeJson(value))).toEqual(value);
    });
  });

  describe('When a value is plain JSON', () => {
    it.each([null, 0, 'text', [1, 'a', null], { a: { b: [true] } }, { $date: 1 }])('should round-trip %j', (value) => {
      expect(decodeJson(encodeJson(value))).toEqual(value);
    });
  });

  describe('When a value is undefined', () => {
    it('should store null', () => {
      expect(decodeJson(encodeJson(undefined))).toBeNull();
    });
  });
});
