import type { PageSetupStep } from './step.js';

/**
 * Removes WebRTC (RTCPeerConnection and every other `RTC…` interface, prefixed ones included) from each
 * document of the page before any of its scripts run: the main frame (loaded from `url`, or the fresh
 * document `html` is written into: navigate.ts) and every iframe, those created by script too. A page can then open no peer connection, STUN, TURN or data channel at all. The browser's
 * profile forbids WebRTC UDP besides (PROFILE_PREFERENCES), which also covers windows the page opens.
 */
export const WEBRTC_REMOVAL_SCRIPT = `(() => {
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    if (/^(webkit|moz)?RTC/.test(name)) delete globalThis[name];
  }
})();`;

/** Applied to every render, whatever its parameters. */
export const webrtcStep: PageSetupStep = (page) => page.evaluateOnNewDocument(WEBRTC_REMOVAL_SCRIPT);
