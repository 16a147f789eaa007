import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Page } from 'puppeteer-core';
import type { RenderParams } from '@app/proto/render';
import type { RenderOperation } from '../types.js';
import type { PageSetupStep } from './step.js';
import { CONSENT_STATE, DETECTOR_PREHIDE_ID, URL_MATCHED, detectorScript, requestForUrl } from './consent-detector.js';
import { consentSignatures, consentUrlMatches } from './consent-signatures.js';

/**
 * Cookie banners (block_annoyance cookies_banner and above): DuckDuckGo's autoconsent, with the rules
 * shipped in its npm package. A small detector in every frame hides known consent popups from the first
 * paint (prehide) and, only when one shows up, has autoconsent run in that frame to opt out of it. No
 * message leaves the page: the init answer (config and rules) is given in the page itself.
 */
const CONFIG = {
  enabled: true,
  autoAction: 'optOut',
  disabledCmps: [],
  enablePrehide: true,
  enableCosmeticRules: true,
  enableGeneratedRules: true,
  enableHeuristicDetection: false,
  heuristicMode: 'off',
  detectRetries: 0,
  isMainWorld: true,
  // Known popups stay hidden for the whole render, even while their opt-out is still running.
  prehideTimeout: 60_000,
  enablePopupMutationObserver: false,
  visualTest: false,
  performanceLoggingEnabled: false,
  heuristicPopupSearchTimeout: 0,
  logs: { lifecycle: false, rulesteps: false, detectionsteps: false, evals: false, errors: false, messages: false, waits: false },
};


let script: string | undefined;

/**
 * The handler for a frame whose detector asked for it: the bootstrap (message bridge answered in the
 * page) followed by autoconsent's content script. It runs once per document, and only there.
 */
export function consentScript(): string {
  if (script) return script;
  const require = createRequire(import.meta.url);
  const content = readFileSync(join(dirname(require.resolve('@duckduckgo/autoconsent')), 'autoconsent.playwright.js'), 'utf8');
  const compact = readFileSync(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8');
  const bridge = `
  const config = ${JSON.stringify(CONFIG)};
  const rules = { autoconsent: [], compact: JSON.parse(${JSON.stringify(compact)}) };
  state.lifecycle = 'loading';
  const reply = (message) => setTimeout(() => window.autoconsentReceiveMessage && window.autoconsentReceiveMessage(message), 0);
  window.autoconsentSendMessage = async (message) => {
    if (!message || typeof message !== 'object') return;
    if (message.type === 'init') reply({ type: 'initResp', config, rules });
    else if (message.type === 'eval') {
      let result = false;
      try { result = await (0, eval)(message.code); } catch { result = false; }
      reply({ type: 'evalResp', id: message.id, result });
    } else if (message.type === 'report' && message.state) {
      document.getElementById(${JSON.stringify(DETECTOR_PREHIDE_ID)})?.remove();
      if (message.mainFrame) state.lifecycle = message.state.lifecycle;
    }
  };`;
  script = `{ const state = window.${CONSENT_STATE};
if (state && state.lifecycle === 'requested') {${bridge}
${content}
} }`;
  return script;
}

export const consentWanted = (params: RenderParams): boolean =>
  (params.block_annoyance ?? 'cookies_banner') !== 'none' && params.js_enabled !== false;

/**
 * Whether a popup the prehide styles hide from the first paint stays out of the render without its
 * opt-out: a render that shows only the viewport, without a click. Then the opt-out is neither run nor
 * waited for (the page stays as it was, the popup invisible). A scrape reads the DOM, a pdf or full-page
 * screenshot lays out the whole document (a popup may lock scrolling until answered), and a click may
 * land on the popup.
 */
export const hiddenPopupsStayOut = (operation: RenderOperation, params: RenderParams): boolean =>
  !params.click_selector &&
  (operation === 'screencast' || (operation === 'screenshot' && params.full_page !== true && params.full_page_scroll !== true));

/**
 * The console message by which a frame's detector asks for the handler (no binding to install: the page
 * setup costs no extra round trip), followed by ` hidden` when the popup it found is one the prehide
 * styles hide, ` shown` otherwise. A page that writes it itself only gets the handler run in it.
 */
const SIGNAL = '__renderConsentWanted';
const ASKED = { shown: `${SIGNAL} shown`, hidden: `${SIGNAL} hidden` };

/** Runs the handler in every frame of the page whose detector asked for it (the script checks). */
async function runHandler(page: Page): Promise<void> {
  await Promise.all(page.frames().map((frame) => frame.evaluate(consentScript()).catch(() => undefined)));
}

let detector: string | undefined;

/**
 * Installs the consent detector before any script of the page runs; autoconsent itself runs only in
 * frames where the detector saw a known popup, or whose URL (matched here, as each frame navigates) is
 * one a site-specific rule is for, so a page without one does not pay for it.
 */
export const consentStep: PageSetupStep = async (page, params, operation) => {
  if (!consentWanted(params)) return;
  const hiddenStaysOut = hiddenPopupsStayOut(operation, params);
  page.on('console', (message) => {
    if (message.type() !== 'debug') return;
    const text = message.text();
    if (text === ASKED.shown || (text === ASKED.hidden && !hiddenStaysOut)) void runHandler(page);
  });
  page.on('framenavigated', (frame) => {
    if (consentUrlMatches(frame.url())) void frame.evaluate(requestForUrl, CONSENT_STATE, URL_MATCHED).catch(() => undefined);
  });
  detector ??= detectorScript(consentSignatures(), SIGNAL);
  await page.evaluateOnNewDocument(detector);
};

/** autoconsent's lifecycle states while it is handling a popup it found (opting out). */
export const CONSENT_BUSY_STATES = [
  // asked for by the detector, not yet through autoconsent's detection
  'requested',
  'loading',
  'initialized',
  'waitingForInitResponse',
  'started',
  'cmpDetected',
  'openPopupDetected',
  'runningOptOut',
  'runningOptIn',
];

/** Poll interval, in the page, of autoconsent's state while it handles a popup. */
const SETTLE_POLL_MS = 50;
/** Time given beyond maxMs for the page's answer, before the wait is given up from outside. */
const SETTLE_SLACK_MS = 250;

/**
 * Waits (at most maxMs) while autoconsent is handling a popup it found in the main frame, so the
 * opt-out completes before the capture. With `unlessHidden`, a popup the prehide styles hide (out of the
 * image from the first paint) is not waited for: the render shows nothing its opt-out changes. A page where nothing was found (or not yet: known popups are
 * hidden by the prehide styles from the first paint anyway) is not held up: one evaluation answers at
 * once. The wait runs in the page (no waitForFunction, whose helper script Puppeteer would first inject
 * into every fresh context), bounded from outside too.
 */
export async function settleConsent(page: Page, params: RenderParams, maxMs: number, opts: { unlessHidden?: boolean } = {}): Promise<void> {
  if (!consentWanted(params) || maxMs <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  const givenUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs + SETTLE_SLACK_MS)));
  const settled = page
    .evaluate(
      (busy: string[], name: string, waitMs: number, pollMs: number, unlessHidden: boolean) =>
        new Promise<void>((resolve) => {
          const endsAt = Date.now() + waitMs;
          const check = () => {
            const state = (globalThis as unknown as Record<string, { lifecycle: string; hidden?: boolean } | undefined>)[name];
            if (!state || !busy.includes(state.lifecycle) || (unlessHidden && state.hidden) || Date.now() >= endsAt) resolve();
            else setTimeout(check, pollMs);
          };
          check();
        }),
      CONSENT_BUSY_STATES,
      CONSENT_STATE,
      maxMs,
      SETTLE_POLL_MS,
      opts.unlessHidden === true,
    )
    .catch(() => undefined);
  await Promise.race([settled, givenUp]).finally(() => clearTimeout(timer));
}
