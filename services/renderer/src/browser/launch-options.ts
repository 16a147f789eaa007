import { existsSync } from 'node:fs';
import type { LaunchOptions } from 'puppeteer-core';
import { DEFAULT_VIEWPORT } from '@app/render-params';

/**
 * Where a Chromium binary is looked for when neither the option nor CHROME_PATH names one. First the
 * headless shell (Debian's `chromium-headless-shell`): the same Blink and Skia, so the same pixels, without
 * the full browser around them; a fresh context's render costs about half the CPU of the full browser's
 * headless mode. Then the full browser, where only it is installed.
 */
export const CHROMIUM_CANDIDATES: readonly string[] = [
  '/usr/lib/chromium/chromium-headless-shell',
  '/usr/bin/chromium-headless-shell',
  '/usr/lib/chromium/chromium', // Debian's real binary: starts ~20 ms faster than the /usr/bin wrapper script
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
];

export interface ExecutableLookup {
  /** An explicit path (from the service config); wins over everything else. */
  executablePath?: string | undefined;
  /** Environment read for CHROME_PATH; defaults to process.env at call time. */
  env?: Record<string, string | undefined>;
  exists?: (path: string) => boolean;
}

/** The Chromium binary to launch: the explicit path, then CHROME_PATH, then the usual install locations. */
export function findChromium(lookup: ExecutableLookup = {}): string {
  const exists = lookup.exists ?? existsSync;
  const env = lookup.env ?? process.env;
  const explicit = lookup.executablePath || env['CHROME_PATH'];
  if (explicit) {
    if (!exists(explicit)) {
      throw new Error(`Chromium not found at ${explicit} (from the executablePath option or CHROME_PATH).`);
    }
    return explicit;
  }
  const found = CHROMIUM_CANDIDATES.find((candidate) => exists(candidate));
  if (!found) {
    throw new Error(
      `No Chromium executable found (looked in ${CHROMIUM_CANDIDATES.join(', ')}). ` +
        'Install Chromium or set CHROME_PATH to the browser binary.',
    );
  }
  return found;
}

/** Whether the binary is Chromium's headless shell (chromium-headless-shell, chrome-headless-shell). */
export const isHeadlessShell = (executablePath: string): boolean => /headless[-_]shell[^/]*$/.test(executablePath);

export interface ChromiumFlagsInput {
  userDataDir: string;
  /** The binary is the headless shell: always headless, so no `--headless=new`. */
  headlessShell?: boolean | undefined;
  /** Egress proxy every request goes through (the SSRF guard); loopback is not bypassed. */
  proxyUrl?: string | undefined;
  gpu?: boolean | undefined;
  runningAsRoot?: boolean | undefined;
  /** Public-key hashes (spkiHashes) of certificates the browser trusts besides its own store. */
  trustedSpki?: readonly string[] | undefined;
}

/** With a GPU (RENDERER_GPU): hardware rasterization even on GPUs Chromium's blocklist names. */
export const GPU_FLAGS: readonly string[] = ['--ignore-gpu-blocklist', '--enable-gpu-rasterization', '--enable-zero-copy'];

/** Command-line flags added to Puppeteer's defaults. */
export function chromiumFlags(input: ChromiumFlagsInput): string[] {
  const flags = [
    ...(input.headlessShell ? [] : ['--headless=new']),
    '--disable-dev-shm-usage',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--disable-sync',
    // Chromium keeps a spare renderer process ready for each new context; every render uses a fresh
    // context, so the spare is never used and costs ~30 ms of CPU per render. (Puppeteer merges this
    // list into its own --disable-features.)
    '--disable-features=SpareRendererForSitePerProcess',
    // WebRTC may not send UDP around the egress proxy (the SSRF guard). The headless shell holds to this
    // flag; the full browser was seen not to (a page's STUN still went out), and holds to the profile's
    // preferences instead (PROFILE_PREFERENCES, profile-dirs.ts). The page setup removes the WebRTC
    // interfaces from every frame besides.
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    `--user-data-dir=${input.userDataDir}`,
  ];
  if (input.gpu) flags.push(...GPU_FLAGS);
  else flags.push('--disable-gpu');
  if (input.runningAsRoot) flags.push('--no-sandbox');
  if (input.trustedSpki?.length) flags.push(`--ignore-certificate-errors-spki-list=${input.trustedSpki.join(',')}`);
  if (input.proxyUrl) {
    // `<-loopback>` removes Chromium's implicit loopback bypass, so 127.0.0.1 goes through the guard too.
    flags.push(`--proxy-server=${input.proxyUrl}`, '--proxy-bypass-list=<-loopback>');
  }
  return flags;
}

export interface BrowserLaunchInput {
  executablePath: string;
  userDataDir: string;
  /** TMPDIR of the browser (its shared-memory files with --disable-dev-shm-usage, its scratch dirs). */
  tmpDir?: string | undefined;
  proxyUrl?: string | undefined;
  gpu?: boolean | undefined;
  trustedSpki?: readonly string[] | undefined;
  viewport?: { width: number; height: number } | undefined;
}

/** Puppeteer launch options for one pooled browser. Signals are handled by the service, not by Puppeteer. */
export function browserLaunchOptions(input: BrowserLaunchInput): LaunchOptions {
  const viewport = input.viewport ?? DEFAULT_VIEWPORT;
  const headlessShell = isHeadlessShell(input.executablePath);
  return {
    executablePath: input.executablePath,
    headless: headlessShell ? 'shell' : true,
    pipe: true,
    args: chromiumFlags({
      userDataDir: input.userDataDir,
      headlessShell,
      proxyUrl: input.proxyUrl,
      gpu: input.gpu,
      runningAsRoot: process.getuid?.() === 0,
      trustedSpki: input.trustedSpki,
    }),
    // Chromium's popup blocker stays on (Puppeteer turns it off by default): a page cannot open windows
    // without a user gesture; the few a click may open are closed at once by the page setup.
    ignoreDefaultArgs: ['--disable-popup-blocking'],
    // Warm pages get the API's default viewport when created, so the hot path usually skips setViewport.
    defaultViewport: { width: viewport.width, height: viewport.height, deviceScaleFactor: 1 },
    ...(input.tmpDir ? { env: { ...process.env, TMPDIR: input.tmpDir } } : {}),
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    timeout: 30_000,
    protocolTimeout: 60_000,
  };
}
