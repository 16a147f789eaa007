import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Page } from 'puppeteer-core';
import type { RenderParams } from '@app/proto/render';
import type { PageSetupStep } from './step.js';

/**
 * Cookie banners (block_annoyance cookies_banner and above): DuckDuckGo's autoconsent, with the rules
 * shipped in its npm package, runs in every frame of the page. It hides known consent popups as soon
 * as they appear (prehide) and opts out of them. No message leaves the page: the init answer (config
 * and rules) is given in the page itself.
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

/** The bootstrap (message bridge answered in the page) followed by autoconsent's content script. */
export function consentScript(): string {
  if (script) return script;
  const require = createRequire(import.meta.url);
  const content = readFileSync(join(dirname(require.resolve('@duckduckgo/autoconsent')), 'autoconsent.playwright.js'), 'utf8');
  const compact = readFileSync(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8');
  const bridge = `(() => {
  const config = ${JSON.stringify(CONFIG)};
  const rules = { autoconsent: [], compact: ${compact} };
  const state = { lifecycle: 'loading' };
  Object.defineProperty(window, '__renderConsentState', { value: state, configurable: false });
  const reply = (message) => setTimeout(() => window.autoconsentReceiveMessage && window.autoconsentReceiveMessage(message), 0);
  window.autoconsentSendMessage = async (message) => {
    if (!message || typeof message !== 'object') return;
    if (message.type === 'init') reply({ type: 'initResp', config, rules });
    else if (message.type === 'eval') {
      let result = false;
      try { result = await (0, eval)(message.code); } catch { result = false; }
      reply({ type: 'evalResp', id: message.id, result });
    } else if (message.type === 'report' && message.mainFrame && message.state) state.lifecycle = message.state.lifecycle;
  };
})();`;
  script = `${bridge}\n${content}`;
  return script;
}

export const consentWanted = (params: RenderParams): boolean =>
  (params.block_annoyance ?? 'cookies_banner') !== 'none' && params.js_enabled !== false;

/** Injects autoconsent before any script of the page runs. */
export const consentStep: PageSetupStep = (page, params) =>
  consentWanted(params) ? page.evaluateOnNewDocument(consentScript()) : undefined;

/** autoconsent's lifecycle states while it is handling a popup it found (opting out). */
export const CONSENT_BUSY_STATES = ['cmpDetected', 'openPopupDetected', 'runningOptOut', 'runningOptIn'];

/** Poll interval, in the page, of autoconsent's state while it handles a popup. */
const SETTLE_POLL_MS = 50;
/** Time given beyond maxMs for the page's answer, before the wait is given up from outside. */
const SETTLE_SLACK_MS = 250;

/**
 * Waits (at most maxMs) while autoconsent is handling a popup it found in the main frame, so the
 * opt-out completes before the capture. A page where nothing was found (or not yet: known popups are
 * hidden by the prehide styles from the first paint anyway) is not held up: one evaluation answers at
 * once. The wait runs in the page (no waitForFunction, whose helper script Puppeteer would first inject
 * into every fresh context), bounded from outside too.
 */
export async function settleConsent(page: Page, params: RenderParams, maxMs: number): Promise<void> {
  if (!consentWanted(params) || maxMs <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  const givenUp = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs + SETTLE_SLACK_MS)));
  const settled = page
    .evaluate(
      (busy: string[], waitMs: number, pollMs: number) =>
        new Promise<void>((resolve) => {
          const endsAt = Date.now() + waitMs;
          const check = () => {
            const state = (globalThis as unknown as { __renderConsentState?: { lifecycle: string } }).__renderConsentState;
            if (!state || !busy.includes(state.lifecycle) || Date.now() >= endsAt) resolve();
            else setTimeout(check, pollMs);
          };
          check();
        }),
      CONSENT_BUSY_STATES,
      maxMs,
      SETTLE_POLL_MS,
    )
    .catch(() => undefined);
  await Promise.race([settled, givenUp]).finally(() => clearTimeout(timer));
}
