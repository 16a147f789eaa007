import { parse } from 'content-disposition';
import { describe, expect, it } from 'vitest';
import { contentDisposition } from './content-disposition.js';

describe('contentDisposition', () => {
  describe('When there is no attachment name', () => {
    it('should be inline', () => {
      expect(contentDisposition(undefined, 'png')).toBe('inline');
    });
  });

  describe('When the name is ASCII', () => {
    it('should be the quoted NAME.EXT alone', () => {
      expect(contentDisposition('shot', 'png')).toBe('attachment; filename="shot.png"');
      expect(contentDisposition('a;b,c 100%', 'pdf')).toBe('attachment; filename="a;b,c 100%.pdf"');
    });
  });

  describe.each([
    ['accented Latin', 'Rapport été', 'Rapport ete.pdf'],
    ['above U+00FF', '東京の写真', '_____.pdf'],
    ['an emoji and a dash', 'fête 🙂 – (v2)*', 'fete _ _ (v2)*.pdf'],
  ])('When the name is %s', (_label, name, fallback) => {
    it('should carry an ASCII fallback filename and the exact name as filename*, as a standard parser reads them', () => {
      const header = contentDisposition(name, 'pdf');
      expect(header).toMatch(/^[\x20-\x7e]+$/);
      expect(header).toContain(`filename="${fallback}"`);
      expect(header).toContain("filename*=UTF-8''");
      // The parser decodes filename* (RFC 6266 prefers it over filename): it reads back the exact name.
      const parsed = parse(header);
      expect(parsed.type).toBe('attachment');
      expect(parsed.parameters.filename).toBe(`${name}.pdf`);
      expect(parse(header, { extended: false }).parameters.filename).toBe(fallback);
    });
  });
});
