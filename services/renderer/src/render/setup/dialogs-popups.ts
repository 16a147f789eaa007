import type { Target } from 'puppeteer-core';
import type { PageSetupStep } from './step.js';

/**
 * `window.open` answers null in every document of the page, as a popup blocker does: no window is made
 * (the headless shell has no popup blocker of its own, and making and closing a window costs a target
 * each: a page opening 100 took 8 s to render).
 */
export const NO_WINDOW_OPEN_SCRIPT = `Object.defineProperty(globalThis, 'open', { value: function open() { return null; }, writable: false, configurable: false });`;

/**
 * Nothing a page shows or opens may hold a render until its timeout: JavaScript dialogs (alert,
 * confirm, prompt, beforeunload) are dismissed at once (confirm is false, prompt null, the page is
 * not left), `window.open` opens nothing, and every window the page still opens (target=_blank, a
 * form's target) is closed at once. The listeners live as long as the render's own browser context.
 */
export const dialogsAndPopupsStep: PageSetupStep = (page) => {
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
  const main = page.target();
  const closeWindow = (target: Target) => {
    if (target === main || target.type() !== 'page') return;
    void target
      .page()
      .then((opened) => opened?.close())
      .catch(() => undefined);
  };
  page.browserContext().on('targetcreated', closeWindow);
  return page.evaluateOnNewDocument(NO_WINDOW_OPEN_SCRIPT);
};
