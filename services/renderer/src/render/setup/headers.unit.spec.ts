import { describe, expect, it, vi } from 'vitest';
import type { Page } from 'puppeteer-core';
import { authenticationStep } from './headers.js';
import { renderParams } from '../testing/test-params.js';

const pageOf = (binary: string | undefined) => {
  const page = { authenticate: vi.fn(async () => undefined), browser: () => ({ process: () => (binary ? { spawnfile: binary } : null) }) };
  return { page, asPage: page as unknown as Page };
};
const authorization = Buffer.from('user:pa:ss').toString('base64');

describe('authenticationStep', () => {
  describe('When the browser is the full one and authorization is given', () => {
    it('should still answer challenges with empty credentials only (the header goes to the page origin only)', async () => {
      const { page, asPage } = pageOf('/usr/lib/chromium/chromium');
      await authenticationStep(asPage, renderParams({ url: 'http://site.test/', authorization }), 'screenshot');
      expect(page.authenticate).toHaveBeenCalledWith({ username: '', password: '' });
    });
  });

  describe('When the browser was not launched by the pool (its binary unknown)', () => {
    it('should answer challenges with empty credentials', async () => {
      const { page, asPage } = pageOf(undefined);
      await authenticationStep(asPage, renderParams({ url: 'http://site.test/' }), 'screenshot');
      expect(page.authenticate).toHaveBeenCalledWith({ username: '', password: '' });
    });
  });

  describe('When the browser is the headless shell', () => {
    it('should answer no challenge: the shell renders the 401 page by itself', async () => {
      const { page, asPage } = pageOf('/usr/lib/chromium/chromium-headless-shell');
      await authenticationStep(asPage, renderParams({ url: 'http://site.test/', authorization }), 'screenshot');
      expect(page.authenticate).not.toHaveBeenCalled();
    });
  });
});
