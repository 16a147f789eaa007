import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * What the consent detector looks for, taken from autoconsent's own rule set (the compact rules
 * shipped in its npm package): the elements its generic rules detect and prehide, the URLs its
 * site-specific rules are for, plus the signatures of the consent platforms it handles in code.
 */
export interface ConsentSignatures {
  /** CSS selectors of popups (detection and prehide selectors of the generic rules and code platforms). */
  selectors: string[];
  /** Selectors hidden from the first paint, as autoconsent's prehide does. */
  prehide: string[];
  /** One regular expression of every URL a site-specific rule (or a consent frame) is for. */
  urls: string;
  /** Globals a consent platform defines in the page. */
  globals: string[];
}

type Step = { e?: number; v?: number; any?: Step[] };
type CompactRule = [number, string, number, string, number, number[], Step[], ...unknown[]];

/** The consent platforms autoconsent handles in code (lib/cmps), by the names its rule index gives them. */
export const CODE_PLATFORMS: Readonly<Record<string, { selectors: string[]; prehide?: string[]; globals?: string[]; urls?: string[] }>> = {
  Admiral: { selectors: ['div > div[class*=Card] > div[class*=Frame] > div[class*=Pills] > button[class*=Pills__StyledPill]'] },
  'consentmanager.net': { selectors: ['#cmpbox', '#cmpbox2'], prehide: ['#cmpbox,#cmpbox2'], globals: ['__cmp'] },
  Conversant: { selectors: ['.cmp-root .cmp-receptacle'], prehide: ['.cmp-root'] },
  Cybotcookiebot: {
    selectors: ['#CybotCookiebotDialog', '#dtcookie-container', '#cookiebanner', '#cb-cookieoverlay'],
    prehide: ['#CybotCookiebotDialog,#CybotCookiebotDialogBodyUnderlay,#dtcookie-container,#cookiebanner,#cb-cookieoverlay,.modal--cookie-banner,#cookiebanner_outer,#CookieBanner'],
    globals: ['Cookiebot'],
  },
  Evidon: { selectors: ['#_evidon_banner'] },
  Klaro: { selectors: ['.klaro > .cookie-modal', '.klaro > .cookie-notice'], prehide: ['.klaro'] },
  Onetrust: {
    selectors: ['#onetrust-banner-sdk', '#onetrust-pc-sdk'],
    prehide: ['#onetrust-banner-sdk,#onetrust-consent-sdk,.onetrust-pc-dark-filter,.js-consent-banner'],
  },
  'Sourcepoint-frame': {
    selectors: [],
    prehide: ["div[id^='sp_message_container_'],.message-overlay", '#sp_privacy_manager_container'],
    urls: ['sp-prod\\.net', '[?&](message_id|requestUUID|consentUUID)='],
  },
  'tiktok.com': { selectors: ['tiktok-cookie-banner'], urls: ['tiktok'] },
  'TrustArc-top': { selectors: ['#truste-show-consent', '#truste-consent-track'], prehide: ['.trustarc-banner-container', '.truste_popframe,.truste_overlay,.truste_box_overlay,#truste-consent-track'] },
  'tumblr-com': { selectors: ['#cmp-app-container'], prehide: ['#cmp-app-container'], urls: ['^https://(www\\.)?tumblr\\.com/'] },
  Uniconsent: { selectors: ['.unic .unic-box,.unic .unic-bar,.unic .unic-modal'], prehide: ['.unic'] },
};

let signatures: ConsentSignatures | undefined;

export function consentSignatures(): ConsentSignatures {
  if (signatures) return signatures;
  const require = createRequire(import.meta.url);
  const compact = JSON.parse(readFileSync(require.resolve('@duckduckgo/autoconsent/rules/compact-rules.json'), 'utf8')) as {
    s: string[];
    r: CompactRule[];
  };
  const selectors = new Set<string>();
  const prehide = new Set<string>();
  const urls = new Set<string>();
  const collect = (step: Step): void => {
    for (const ref of [step.e, step.v]) if (typeof ref === 'number' && compact.s[ref]) selectors.add(compact.s[ref]);
    step.any?.forEach(collect);
  };
  for (const rule of compact.r) {
    const [, , , urlPattern, , prehideRefs, detect] = rule;
    if (urlPattern) {
      urls.add(urlPattern);
      continue;
    }
    for (const ref of prehideRefs ?? []) if (compact.s[ref]) prehide.add(compact.s[ref]);
    (detect ?? []).forEach(collect);
  }
  const globals = new Set<string>();
  for (const platform of Object.values(CODE_PLATFORMS)) {
    platform.selectors.forEach((s) => selectors.add(s));
    platform.prehide?.forEach((s) => prehide.add(s));
    platform.urls?.forEach((u) => urls.add(u));
    platform.globals?.forEach((g) => globals.add(g));
  }
  for (const s of prehide) selectors.add(s);
  signatures = { selectors: [...selectors], prehide: [...prehide], urls: [...urls].map((u) => `(?:${u})`).join('|'), globals: [...globals] };
  return signatures;
}

let urlPattern: RegExp | undefined;

/** Whether a frame's URL is one a site-specific rule (or a consent frame) is for; compiled once per process. */
export function consentUrlMatches(url: string): boolean {
  urlPattern ??= new RegExp(consentSignatures().urls || '(?!)');
  return urlPattern.test(url);
}
