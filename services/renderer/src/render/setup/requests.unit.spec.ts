import { describe, expect, it } from 'vitest';
import { renderParams } from '../testing/test-params.js';
import { requestPolicy, requestsNeedDeciding, type RequestInfo } from './requests.js';

const request = (url: string, fields: Partial<RequestInfo> = {}): RequestInfo => ({
  url,
  resourceType: 'image',
  isMainDocument: false,
  headers: { accept: '*/*' },
  ...fields,
});

describe('requestPolicy', () => {
  describe('When the page asks for a scheme other than http(s), data or blob', () => {
    it.each(['file:///etc/passwd', 'FILE:///etc/passwd', 'ftp://127.0.0.1/', 'chrome://version', 'view-source:http://a.test/'])(
      'should refuse %s',
      (url) => {
        expect(requestPolicy(renderParams({ block_annoyance: 'none' }))(request(url))).toEqual({ action: 'abort', reason: 'accessdenied' });
      },
    );
  });

  describe('When block_ressources names the type of a request', () => {
    it('should block it but never the page itself', () => {
      const decide = requestPolicy(renderParams({ block_ressources: ['image', 'document'], block_annoyance: 'none' }));
      expect(decide(request('http://a.test/x.png'))).toMatchObject({ action: 'abort' });
      expect(decide(request('http://a.test/x.css', { resourceType: 'stylesheet' }))).toEqual({ action: 'continue' });
      expect(decide(request('http://a.test/', { resourceType: 'document', isMainDocument: true }))).toEqual({ action: 'continue' });
      expect(decide(request('http://a.test/frame', { resourceType: 'document' }))).toMatchObject({ action: 'abort' });
    });
  });

  describe('When block_annoyance asks for ads or tracking', () => {
    const ad = 'https://securepubads.g.doubleclick.net/tag/js/gpt.js';
    const analytics = 'https://www.google-analytics.com/analytics.js';
    it.each([
      ['none', false, false],
      ['cookies_banner', false, false],
      ['ads', true, false],
      ['tracking', true, true],
    ])('with %s should block ads: %s, analytics: %s', (level, adBlocked, analyticsBlocked) => {
      const decide = requestPolicy(renderParams({ url: 'https://news.example/', block_annoyance: level }));
      expect(decide(request(ad, { resourceType: 'script' })).action).toBe(adBlocked ? 'abort' : 'continue');
      expect(decide(request(analytics, { resourceType: 'script' })).action).toBe(analyticsBlocked ? 'abort' : 'continue');
    });
  });

  describe('When authorization is given', () => {
    it('should add it to requests to the page origin only', () => {
      const decide = requestPolicy(renderParams({ url: 'http://a.test:8080/x', authorization: 'dTpw', block_annoyance: 'none' }));
      expect(decide(request('http://a.test:8080/img.png'))).toEqual({
        action: 'continue',
        headers: { accept: '*/*', authorization: 'Basic dTpw' },
      });
      expect(decide(request('http://b.test/img.png'))).toEqual({ action: 'continue' });
    });
  });
});

describe('requestsNeedDeciding', () => {
  describe('When no parameter decides about single requests', () => {
    it('should be false, so no request of the page is paused', () => {
      expect(requestsNeedDeciding(renderParams({ url: 'https://a.test/', block_annoyance: 'none' }))).toBe(false);
      expect(requestsNeedDeciding(renderParams({ html: '<p>x</p>', block_annoyance: 'none' }))).toBe(false);
    });
  });

  describe('When block_ressources, block_annoyance or authorization is given', () => {
    it.each([
      ['block_ressources', { block_ressources: ['image'], block_annoyance: 'none' }],
      ['block_annoyance by default (cookies_banner)', {}],
      ['block_annoyance=ads', { block_annoyance: 'ads' }],
      ['authorization', { authorization: 'dTpw', block_annoyance: 'none' }],
    ])('should be true with %s', (_name, params) => {
      expect(requestsNeedDeciding(renderParams({ url: 'https://a.test/', ...params }))).toBe(true);
    });
  });
});
