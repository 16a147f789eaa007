import { describe, expect, it } from 'vitest';
import { whileBusUnavailable } from './publish-until-stored.js';

const named = (name: string) => Object.assign(new Error(name), { name });

describe('Repeating an operation while the bus is unavailable', () => {
  describe('When it times out twice, then answers', () => {
    it('should return the answer of the third attempt', async () => {
      let calls = 0;
      const answer = await whileBusUnavailable(async () => {
        calls++;
        if (calls < 3) throw named('TimeoutError');
        return 'bytes';
      }, 5_000);
      expect(answer).toBe('bytes');
      expect(calls).toBe(3);
    });
  });

  describe('When it fails for another reason', () => {
    it('should throw that error after one attempt', async () => {
      let calls = 0;
      const failing = whileBusUnavailable(async () => {
        calls++;
        throw named('TypeError');
      }, 5_000);
      await expect(failing).rejects.toMatchObject({ name: 'TypeError' });
      expect(calls).toBe(1);
    });
  });

  describe('When the bus stays unavailable past the deadline', () => {
    it('should throw the last unavailability', async () => {
      await expect(whileBusUnavailable(async () => Promise.reject(named('NoRespondersError')), 300)).rejects.toMatchObject({ name: 'NoRespondersError' });
    });
  });
});
