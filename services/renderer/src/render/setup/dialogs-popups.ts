import type { Target } from 'puppeteer-core';
import type { PageSetupStep } from './step.js';

/**
 * Nothing a page shows or opens may hold a render until its timeout: JavaScript dialogs (alert,
 * confirm, prompt, beforeunload) are dismissed at once (confirm is false, prompt null, the page is
 * not left), and every window the page opens (window.open, target=_blank, popups of popups) is closed
 * at once. The listeners live as long as the render's own browser context.
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
  return undefined;
};
