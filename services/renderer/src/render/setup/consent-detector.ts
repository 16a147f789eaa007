import type { ConsentSignatures } from './consent-signatures.js';

/** The page's handle on the consent state (shared by the detector, the handler and the settle wait). */
export const CONSENT_STATE = '__renderConsentState';
/** Id of the detector's prehide style (not the page's content: scrape leaves it out). */
export const DETECTOR_PREHIDE_ID = 'render-consent-prehide';

/** Set in a frame when its URL is one a site-specific rule is for and the detector had not run yet. */
export const URL_MATCHED = '__renderConsentUrlMatched';

interface DetectorInput extends Omit<ConsentSignatures, 'urls'> {
  /** Text of the console message by which a frame asks for the handler. */
  signal: string;
  stateName: string;
  prehideId: string;
  urlMatched: string;
}

/**
 * Runs in every frame at document start: hides known popups from the first paint (autoconsent's
 * prehide styles) and asks for the full handler (a console message) only when a known popup's element
 * or platform global shows up, or when the renderer, which matches each frame's URL against the
 * site-specific rules (a regular expression of some 500 alternatives, which would cost each document
 * 40 ms to compile), calls `state.request()`. A page with nothing to hide never runs autoconsent.
 */
function detect(input: DetectorInput): void {
  const w = window as unknown as Record<string, unknown>;
  if (w[input.stateName]) return;
  // hidden: the popup found is inside an element the prehide styles hide (it is out of the image already).
  const state = { lifecycle: 'idle', hidden: false, request: (): void => undefined };
  Object.defineProperty(window, input.stateName, { value: state, configurable: false });
  // Taken before any script of the page runs: a page that silences its console does not silence this.
  const ask = console.debug.bind(console, input.signal);
  const probe = document.createDocumentFragment();
  const parses = (selector: string): boolean => {
    try {
      probe.querySelector(selector);
      return true;
    } catch {
      return false;
    }
  };
  // A selector is kept only if it still parses followed by another one (an unclosed bracket, which
  // parses alone, would swallow the rest of the list); the list is matched in one call.
  const valid = input.selectors.filter((s) => parses(`${s},b`));
  const list = parses(valid.join(',')) ? [valid.join(',')] : valid;
  const found = (): Element | undefined => {
    for (const s of list) {
      const element = s === '' ? null : document.querySelector(s);
      if (element) return element;
    }
    return undefined;
  };
  const prehidden = input.prehide.filter((s) => parses(`${s},b`)).join(',');
  let observer: MutationObserver | undefined;
  let pending: ReturnType<typeof setTimeout> | undefined;
  const request = (): void => {
    if (state.lifecycle !== 'idle') return;
    state.lifecycle = 'requested';
    observer?.disconnect();
    if (pending) clearTimeout(pending);
    ask(state.hidden ? 'hidden' : 'shown');
  };
  const check = (): void => {
    pending = undefined;
    if (state.lifecycle !== 'idle') return;
    const popup = found();
    if (popup) {
      try {
        state.hidden = prehidden !== '' && popup.closest(prehidden) !== null;
      } catch {
        state.hidden = false;
      }
      request();
    } else if (input.globals.some((g) => g in window)) request();
  };
  state.request = request;
  if (w[input.urlMatched]) return request();

  const style = document.createElement('style');
  style.id = input.prehideId;
  style.textContent = input.prehide.map((s) => `${s}{opacity:0!important;z-index:-1!important;pointer-events:none!important}`).join('\n');
  const attach = (): boolean => {
    const root = document.head ?? document.documentElement;
    if (!root) return false;
    root.appendChild(style);
    return true;
  };
  observer = new MutationObserver(() => {
    if (!style.isConnected) attach();
    if (!pending) pending = setTimeout(check, 30);
  });
  observer.observe(document, { childList: true, subtree: true });
  attach();
  document.addEventListener('DOMContentLoaded', check);
  window.addEventListener('load', check);
}

/** The detector's source for one set of signatures. */
export function detectorScript({ selectors, prehide, globals }: ConsentSignatures, signal: string): string {
  const input: DetectorInput = { selectors, prehide, globals, signal, stateName: CONSENT_STATE, prehideId: DETECTOR_PREHIDE_ID, urlMatched: URL_MATCHED };
  return `(${detect.toString()})(${JSON.stringify(input)});`;
}

/**
 * Run in a frame whose URL a site-specific rule is for: asks for the handler through the detector, or,
 * when the detector has not run in the document yet, leaves it the mark to do so.
 */
export function requestForUrl(stateName: string, urlMatched: string): void {
  const w = window as unknown as Record<string, { request?: () => void } | boolean | undefined>;
  const state = w[stateName];
  if (state && typeof state === 'object' && typeof state.request === 'function') state.request();
  else w[urlMatched] = true;
}
