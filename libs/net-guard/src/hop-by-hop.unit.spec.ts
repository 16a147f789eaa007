import { describe, expect, it } from 'vitest';
import { endToEndHeaders } from './hop-by-hop.js';

describe('endToEndHeaders', () => {
  describe('When hop-by-hop and Connection-listed headers are present', () => {
    it('should drop them and keep the rest, with case and duplicates intact', () => {
      const raw = [
        'Host', 'a.test',
        'Proxy-Connection', 'keep-alive',
        'Proxy-Authorization', 'Basic eA==',
        'Connection', 'keep-alive, X-Secret',
        'X-Secret', '1',
        'Transfer-Encoding', 'chunked',
        'Upgrade', 'websocket',
        'Set-Cookie', 'a=1',
        'Set-Cookie', 'b=2',
        'Accept', '*/*',
      ];
      expect(endToEndHeaders(raw, ['host'])).toEqual(['Set-Cookie', 'a=1', 'Set-Cookie', 'b=2', 'Accept', '*/*']);
    });
  });
});
