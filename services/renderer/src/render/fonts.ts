/// <reference lib="dom" />
import type { Page } from 'puppeteer-core';

const PROBE = 'data-render-font-probe';
/** Representative elements inspected: one per distinct computed font (family, weight, style). */
const MAX_PROBES = 50;

/**
 * The font families actually used to draw the page's text (platform fonts, fallbacks included), as
 * Chromium reports them for one element per distinct computed font.
 */
export async function usedFonts(page: Page): Promise<string[]> {
  const probes = await page.evaluate(
    (attribute: string, max: number) => {
      const seen = new Set<string>();
      const walker = document.createTreeWalker(document.body ?? document.documentElement, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node && seen.size < max; node = walker.nextNode()) {
        const element = node.parentElement;
        if (!element || !node.textContent?.trim()) continue;
        const style = getComputedStyle(element);
        if (style.display === 'none' || style.visibility === 'hidden') continue;
        const key = `${style.fontFamily}|${style.fontWeight}|${style.fontStyle}`;
        if (seen.has(key)) continue;
        seen.add(key);
        element.setAttribute(attribute, '');
      }
      return seen.size;
    },
    PROBE,
    MAX_PROBES,
  );
  if (probes === 0) return [];
  const session = await page.createCDPSession();
  try {
    await session.send('DOM.enable');
    await session.send('CSS.enable');
    const { root } = await session.send('DOM.getDocument', { depth: 0 });
    const { nodeIds } = await session.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector: `[${PROBE}]` });
    const families = new Set<string>();
    for (const nodeId of nodeIds) {
      const { fonts } = await session.send('CSS.getPlatformFontsForNode', { nodeId });
      for (const font of fonts) if (font.glyphCount > 0) families.add(font.familyName);
    }
    return [...families].sort();
  } finally {
    await session.detach().catch(() => undefined);
    await page.evaluate((attribute: string) => document.querySelectorAll(`[${attribute}]`).forEach((e) => e.removeAttribute(attribute)), PROBE).catch(() => undefined);
  }
}
