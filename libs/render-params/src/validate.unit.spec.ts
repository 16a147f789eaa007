import { describe, expect, it } from 'vitest';
import { ValidationError } from '@app/errors';
import { validateRenderParams } from './validate.js';

const problemsOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).details ?? [];
  }
  throw new Error('expected a ValidationError');
};

describe('validateRenderParams', () => {
  describe('When a screenshot has only a url', () => {
    it('should apply the defaults: 1280x1080 jpeg at quality 80, 30 s, domcontentloaded', () => {
      const { params } = validateRenderParams('screenshot', { url: 'https://example.com/' });
      expect(params).toMatchObject({
        url: 'https://example.com/',
        format: 'jpeg',
        image_quality: 80,
        viewport_width: 1280,
        viewport_height: 1080,
        timeout: 30,
        delay: 0,
        wait_until: ['domcontentloaded'],
      });
    });
  });

  describe('When values come as strings (GET form)', () => {
    it('should coerce numbers, booleans and comma-separated lists, and read jpg as jpeg', () => {
      const { params } = validateRenderParams('screenshot', {
        url: 'http://a.test/',
        format: 'jpg',
        image_quality: '55',
        full_page: 'true',
        wait_until: 'load,networkidle0',
      });
      expect(params).toMatchObject({ format: 'jpeg', image_quality: 55, full_page: true, wait_until: ['load', 'networkidle0'] });
    });
  });

  describe('When neither or both of url and html are given', () => {
    it('should name the problem', () => {
      expect(problemsOf(() => validateRenderParams('screenshot', {}))).toEqual([
        { parameter: 'url', message: 'one of url or html is required' },
      ]);
      expect(problemsOf(() => validateRenderParams('pdf', { url: 'http://a.test/', html: '<p>x</p>' }))).toEqual([
        { parameter: 'url', message: 'give either url or html, not both' },
      ]);
    });
  });

  describe('When several parameters are bad', () => {
    it('should list every one of them', () => {
      const problems = problemsOf(() =>
        validateRenderParams('screenshot', { url: 'not a url', format: 'bmp', image_quality: 0, nonsense: 1, timeout: 31 }),
      );
      expect(problems.map((p) => p.parameter).sort()).toEqual(['format', 'image_quality', 'nonsense', 'timeout', 'url']);
    });
  });

  describe('When scrape is given html', () => {
    it('should refuse it as not a parameter of scrape and still require url', () => {
      const problems = problemsOf(() => validateRenderParams('scrape', { html: '<p>x</p>' }));
      expect(problems.map((p) => p.parameter).sort()).toEqual(['html', 'url']);
    });
  });

  describe('When access_key travels with the parameters', () => {
    it('should ignore it', () => {
      expect(validateRenderParams('scrape', { url: 'http://a.test/', access_key: 'k' }).params).not.toHaveProperty('access_key');
    });
  });

  describe('When attachment_name is Unicode text', () => {
    it.each(['Rapport été 2026', '東京の写真', 'emoji 🙂 – dash', 'a;b,c%20d', 'x'.repeat(200)])('should accept %s as it is', (name) => {
      expect(validateRenderParams('screenshot', { url: 'http://a.test/', attachment_name: name }).params.attachment_name).toBe(name);
    });
  });

  describe('When attachment_name holds a quote, a path separator or a control character', () => {
    it.each([
      ['a double quote', 'a"b'],
      ['a single quote', "it's"],
      ['a slash', 'dir/name'],
      ['a backslash', 'dir\\name'],
      ['NUL', 'a\u0000b'],
      ['CR/LF', 'a\r\nSet-Cookie: x=1'],
      ['tab', 'a\tb'],
      ['DEL', 'a\u007fb'],
      ['a C1 control', 'a\u0085b'],
      ['a line separator', 'a\u2028b'],
      ['a right-to-left override', 'photo\u202egpj.exe'],
      ['an unpaired surrogate', 'a\ud800b'],
    ])('should refuse %s, naming attachment_name, for every operation', (_label, name) => {
      for (const operation of ['screenshot', 'pdf', 'scrape'] as const) {
        expect(problemsOf(() => validateRenderParams(operation, { url: 'http://a.test/', attachment_name: name }))).toEqual([
          { parameter: 'attachment_name', message: 'attachment_name must not contain quotes, slashes, backslashes, control characters or line breaks' },
        ]);
      }
    });
  });
});
