import { TimeoutError } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';
import { countdown } from './countdown.js';
import { navigationError, renderError } from './render-errors.js';

const clock = countdown({ timeoutMs: 3_000 });

describe('navigationError', () => {
  describe('When the host name does not resolve', () => {
    it('should be name_not_resolved naming the host', () => {
      const err = navigationError(new Error('net::ERR_NAME_NOT_RESOLVED at https://nope.example/'), { url: 'https://nope.example/x' }, clock);
      expect(err.code).toBe('name_not_resolved');
      expect(err.message).toContain('nope.example');
    });
  });

  describe('When Chromium reports another network error', () => {
    it('should be render_failed with the error code and nothing else', () => {
      const err = navigationError(new Error('net::ERR_CONNECTION_REFUSED at http://10.0.0.1/ secret'), { url: 'http://10.0.0.1/' }, clock);
      expect(err).toMatchObject({ code: 'render_failed', message: 'url: the page could not be loaded (ERR_CONNECTION_REFUSED).' });
    });
  });

  describe('When navigation times out', () => {
    it('should be render_timeout with the timeout in seconds', () => {
      const err = navigationError(new TimeoutError('Navigation timeout of 3000 ms exceeded'), {}, clock);
      expect(err).toMatchObject({ code: 'render_timeout', message: expect.stringContaining('3 seconds') });
    });
  });
});

describe('renderError', () => {
  describe('When an unexpected error escapes', () => {
    it('should be a generic render_failed that does not echo it', () => {
      const err = renderError(new Error('Protocol error (Page.captureScreenshot): /usr/lib/chromium crashed'), clock);
      expect(err).toMatchObject({ code: 'render_failed', message: 'The page could not be rendered.' });
    });
  });
});
