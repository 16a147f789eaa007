import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CODE_PLATFORMS, consentSignatures, consentUrlMatches } from './consent-signatures.js';

const require = createRequire(import.meta.url);
const ruleIndex = JSON.parse(readFileSync(join(dirname(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json')), 'rule-index.json'), 'utf8')) as { name: string; section: string }[];

describe('consent signatures', () => {
  it('should know a signature for every consent platform autoconsent handles in code', () => {
    const inCode = ruleIndex.filter((rule) => rule.section === 'code').map((rule) => rule.name);
    expect(Object.keys(CODE_PLATFORMS).sort()).toEqual([...inCode].sort());
  });

  it("should look for the generic rules' popups and match the site-specific rules' URLs", () => {
    const { selectors, prehide, urls } = consentSignatures();
    expect(selectors).toEqual(expect.arrayContaining(['#onetrust-banner-sdk', '#CybotCookiebotDialog', '#adroll_consent_container']));
    expect(prehide).toEqual(expect.arrayContaining(['#adroll_consent_container']));
    expect(prehide.every((s) => selectors.includes(s))).toBe(true);
    expect(new RegExp(urls).test('https://www.tumblr.com/dashboard')).toBe(true);
    expect(new RegExp(urls).test('http://127.0.0.1:8080/bench')).toBe(false);
  });

  it("should match a frame's URL against the site-specific rules in the renderer", () => {
    expect(consentUrlMatches('https://www.tumblr.com/dashboard')).toBe(true);
    expect(consentUrlMatches('https://cdn.privacy-mgmt.com/index.html?message_id=1234')).toBe(true);
    expect(consentUrlMatches('http://127.0.0.1:8080/bench')).toBe(false);
    expect(consentUrlMatches('about:blank')).toBe(false);
  });
});
