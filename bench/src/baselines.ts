import puppeteer, { type Browser, type Page } from 'puppeteer-core';

// The physical limits a rendering service is measured against: Debian's Chromium, driven directly, as a
// Puppeteer user would (its default headless mode of the full browser). The service renders with the
// headless shell; `startBaselines(HEADLESS_SHELL)` drives that build directly too, for the like-for-like row.
export const FULL_CHROMIUM = '/usr/lib/chromium/chromium';
export const HEADLESS_SHELL = '/usr/lib/chromium/chromium-headless-shell';
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

export type Operation = 'screenshot' | 'pdf' | 'scrape';
/** A screenshot's format: jpeg (the API's default, quality 80) or png (Puppeteer's own defaults). */
export type ImageType = 'jpeg' | 'png';

async function produce(page: Page, operation: Operation, image: ImageType = 'jpeg'): Promise<unknown> {
  if (operation === 'screenshot') return page.screenshot(image === 'png' ? { type: 'png' } : { type: 'jpeg', quality: 80 });
  if (operation === 'pdf') return page.pdf({ format: 'letter' });
  return page.content();
}

export interface Baselines {
  /** (a) warm browser, a fresh isolated context per render. */
  freshContext(url: string, operation: Operation, image?: ImageType): Promise<void>;
  /** (b) one page reused for every render (no isolation). */
  reusedPage(url: string, operation: Operation): Promise<void>;
  close(): Promise<void>;
}

export async function startBaselines(executablePath = FULL_CHROMIUM): Promise<Baselines> {
  const shell = executablePath.endsWith('headless-shell');
  const browser: Browser = await puppeteer.launch({
    executablePath,
    headless: shell ? 'shell' : true,
    args: shell ? FLAGS : ['--headless=new', ...FLAGS],
    defaultViewport: { width: 1280, height: 1080 },
    pipe: true,
  });
  const reused = await browser.newPage();
  return {
    async freshContext(url, operation, image) {
      const context = await browser.createBrowserContext();
      try {
        const page = await context.newPage();
        await page.goto(url, { waitUntil: 'domcontentloaded' });
        await produce(page, operation, image);
      } finally {
        await context.close();
      }
    },
    async reusedPage(url, operation) {
      await reused.goto(url, { waitUntil: 'domcontentloaded' });
      await produce(reused, operation);
    },
    close: () => browser.close(),
  };
}
