import puppeteer, { type Browser } from 'puppeteer-core';

/**
 * A headless Chromium (Debian's, or CHROME_PATH) for tests that drive a page the service serves. The
 * stack's certificate is self-signed, so this browser accepts it; everything else is as a user's.
 */
export function launchTestBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    headless: true,
    acceptInsecureCerts: true,
    // Chromium refuses to run its sandbox as root (CI containers).
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run'],
  });
}
