import { describe, expect, it, vi } from 'vitest';
import type { Page } from 'puppeteer-core';
import { authenticationStep } from './headers.js';
import { renderParams } from '../testing/test-params.js';

describe('authenticationStep', () => {
  describe('When authorization is given', () => {
    it('should still answer challenges with empty credentials (the header goes to the page origin only)', async () => {
      const page = { authenticate: vi.fn(async () => undefined) };
      const authorization = Buffer.from('user:pa:ss').toString('base64');
      await authenticationStep(page as unknown as Page, renderParams({ url: 'http://site.test/', authorization }));
      expect(page.authenticate).toHaveBeenCalledWith({ username: '', password: '' });
    });
  });
});
