import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { pdfFonts, pdfPagesText } from './testing/poppler.js';
import { useRenderer } from './testing/render-harness.js';

// Text in every major script, drawn with real glyphs. A missing font draws each character as the same
// box ("tofu"), so two different strings of one script and one length, with their combining marks (vowel
// signs, viramas: boxes of another width) in the same places, would give the same pixels: here they must not. Run with only DejaVu installed (FONTCONFIG_FILE naming its folder alone), the
// CJK, Indic, Thai and emoji cases fail.

/** Two different strings of one script, of the same number of characters, with the language they are in. */
const SCRIPTS: Array<{ script: string; lang: string; strings: [string, string]; pdfFont?: RegExp; inPdfText?: boolean }> = [
  { script: 'Latin', lang: 'en', strings: ['Hello world', 'Quiet lakes'] },
  { script: 'Cyrillic', lang: 'ru', strings: ['Привет мир', 'Добрый дом'] },
  { script: 'Greek', lang: 'el', strings: ['Καλημέρα κόσμε', 'Τηλέφωνο σπίτι'] },
  { script: 'Japanese (kana and kanji)', lang: 'ja', strings: ['こんにちは世界', 'ありがとう日本'], inPdfText: true },
  { script: 'Simplified Chinese', lang: 'zh-Hans', strings: ['简体中文测试', '我们爱学习吧'], inPdfText: true },
  { script: 'Traditional Chinese', lang: 'zh-Hant', strings: ['繁體中文測試', '我們愛學習吧'], inPdfText: true },
  { script: 'Korean', lang: 'ko', strings: ['안녕하세요', '감사합니다'], inPdfText: true },
  { script: 'Arabic', lang: 'ar', strings: ['مرحبا بالعالم', 'كتابة المدرسة'] },
  { script: 'Hebrew', lang: 'he', strings: ['שלום עולם', 'תודה רבה!'] },
  { script: 'Devanagari', lang: 'hi', strings: ['नमस्ते दुनिया', 'कलप्रे सुमिता'], pdfFont: /Devanagari/ },
  { script: 'Bengali', lang: 'bn', strings: ['নমস্কার বিশ্ব', 'কলপ্রাম সিন্ধ'], pdfFont: /Bengali/ },
  { script: 'Tamil', lang: 'ta', strings: ['வணக்கம் உலகம்', 'படத்தல் அரசன்'], pdfFont: /Tamil/ },
  { script: 'Thai', lang: 'th', strings: ['สวัสดีชาวโลก', 'กรัทนีมาลเสย'], pdfFont: /Thai/ },
  { script: 'colour emoji', lang: 'en', strings: ['😀🍕🚀🐱', '🌈🎉🦊🍩'], inPdfText: true },
];

const r = useRenderer();

const textPage = (lang: string, text: string) =>
  `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><style>html,body{margin:0;background:#fff;color:#000}p{margin:8px;font:40px sans-serif}</style></head>` +
  `<body><p>${text}</p></body></html>`;

async function pixels(lang: string, text: string) {
  const out = await r.render('screenshot', { html: textPage(lang, text), format: 'png', viewport_width: 640, viewport_height: 72 });
  return sharp(out.body).removeAlpha().raw().toBuffer();
}

/** Pixels with ink (not near white), and those with strong colour (a channel far from the others). */
function inkOf(raw: Buffer): { ink: number; coloured: number } {
  let ink = 0;
  let coloured = 0;
  for (let i = 0; i < raw.length; i += 3) {
    const [red, green, blue] = [raw[i]!, raw[i + 1]!, raw[i + 2]!];
    if (Math.min(red, green, blue) < 200) ink++;
    if (Math.max(red, green, blue) - Math.min(red, green, blue) > 80) coloured++;
  }
  return { ink, coloured };
}

describe('text in every script', () => {
  describe.each(SCRIPTS)('When a page shows $script text', ({ lang, strings, script }) => {
    it('should draw two different strings of the same length as different pixels (boxes would look alike)', async () => {
      const [a, b] = strings;
      const shape = (text: string) => [...text].map((c) => (/\p{M}/u.test(c) ? 'mark' : c === ' ' ? 'space' : 'letter'));
      expect(shape(a)).toEqual(shape(b));
      const [first, second] = [await pixels(lang, a), await pixels(lang, b)];
      expect(inkOf(first).ink).toBeGreaterThan(200);
      expect(inkOf(second).ink).toBeGreaterThan(200);
      expect(first.equals(second)).toBe(false);
      if (script === 'colour emoji') {
        // In colour: many strongly coloured pixels (black text has none; a monochrome emoji font neither).
        expect(inkOf(first).coloured).toBeGreaterThan(500);
        expect(inkOf(second).coloured).toBeGreaterThan(500);
      }
    });
  });

  describe('When the same text is printed to a PDF', () => {
    it('should embed every font it uses: a font of each Indic script and Thai, and CJK and emoji glyphs that read back as the text', async () => {
      const body = SCRIPTS.map(({ lang, strings }) => `<p lang="${lang}">${strings.join(' ')}</p>`).join('');
      const pdf = await r.render('pdf', { html: textPage('en', '').replace('<p></p>', body) });
      const fonts = await pdfFonts(pdf.body);
      expect(fonts.length).toBeGreaterThan(0);
      expect(fonts.filter((f) => !f.embedded)).toEqual([]);
      for (const { script, pdfFont } of SCRIPTS) {
        if (!pdfFont) continue;
        expect(fonts.map((f) => f.name), script).toEqual(expect.arrayContaining([expect.stringMatching(pdfFont)]));
      }
      // CJK and emoji glyphs are embedded as Type 3 fonts without a name: their text maps back (boxes would not).
      const text = (await pdfPagesText(pdf.body)).join('\n');
      for (const { script, strings, inPdfText } of SCRIPTS) if (inPdfText) for (const s of strings) expect(text, script).toContain(s);
    });
  });
});
