import { describe, expect, it } from 'vitest';
import { challengeCredentials } from './headers.js';

describe('challengeCredentials', () => {
  describe('When the render goes through a proxy with credentials', () => {
    it('should answer challenges with them', () => {
      expect(challengeCredentials({ authorization: 'dTpw' }, { proxyCredentials: { username: 'p', password: 'q' } })).toEqual({ username: 'p', password: 'q' });
    });
  });

  describe('When authorization is given', () => {
    it('should answer a 401 with the decoded user and password', () => {
      const authorization = Buffer.from('user:pa:ss').toString('base64');
      expect(challengeCredentials({ authorization }, {})).toEqual({ username: 'user', password: 'pa:ss' });
    });
  });

  describe('When there is nothing to answer with', () => {
    it('should give empty credentials, so the 401 page itself is rendered', () => {
      expect(challengeCredentials({}, {})).toEqual({ username: '', password: '' });
    });
  });
});
