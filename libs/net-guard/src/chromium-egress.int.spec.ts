import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEgressProxy, type EgressProxy } from './egress-proxy.js';
import { CANARY_BODY, startCanary, type Canary } from './testing/canary.js';
import { fakeLookup } from './testing/fake-lookup.js';

const CHROMIUM = '/usr/bin/chromium';

let canary: Canary;

/** A page with no network origin of its own that asks for the canary every way a page can. */
function probePage(port: number): string {
  const base = `http://127.0.0.1:${port}`;
  return `<!doctype html>
    <img src="${base}/img">
    <iframe src="http://localhost:${port}/frame"></iframe>
    <link rel="stylesheet" href="https://127.0.0.1:${port}/css">
    <script>
      fetch('${base}/fetch').catch(() => {});
      try { new WebSocket('ws://127.0.0.1:${port}/ws'); } catch {}
    </script>`;
}

async function withBrowser(proxy: EgressProxy, use: (page: Page) => Promise<void>): Promise<void> {
  const browser: Browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--headless=new',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      `--proxy-server=${proxy.url}`,
      '--proxy-bypass-list=<-loopback>',
    ],
  });
  try {
    await use(await browser.newPage());
  } finally {
    await browser.close();
  }
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000));

describe.skipIf(!existsSync(CHROMIUM))('Chromium behind the egress proxy', () => {
  let proxy: EgressProxy;
  const lookup = fakeLookup({ localhost: ['127.0.0.1'] });

  beforeEach(async () => {
    canary = await startCanary();
  });

  afterEach(async () => {
    await proxy.close();
    await canary.close();
  });

  describe('When private targets are not allowed', () => {
    beforeEach(async () => {
      proxy = await startEgressProxy({ allowPrivate: false, lookup });
    });

    it('should not reach a loopback canary by navigation, subresource, frame, fetch or WebSocket', async () => {
      await withBrowser(proxy, async (page) => {
        const navigation = await page.goto(`http://127.0.0.1:${canary.port}/page`).catch(() => null);
        expect(navigation?.status() ?? 403).toBe(403);
        await expect(page.goto(`https://127.0.0.1:${canary.port}/secure`)).rejects.toThrow(/ERR_TUNNEL_CONNECTION_FAILED/);
        await page.setContent(probePage(canary.port));
        await settle();
      });
      expect(canary.paths).toEqual([]);
      // The proxy itself refused them (not a browser-side rule): page, secure, img, frame, css, fetch, ws.
      expect(proxy.stats().blocked).toBeGreaterThanOrEqual(6);
      expect(proxy.stats().allowed).toBe(0);
    });
  });

  describe('When private targets are allowed', () => {
    beforeEach(async () => {
      proxy = await startEgressProxy({ allowPrivate: true, lookup });
    });

    it('should reach the canary through the proxy', async () => {
      await withBrowser(proxy, async (page) => {
        const navigation = await page.goto(`http://127.0.0.1:${canary.port}/page`);
        expect(navigation?.status()).toBe(200);
        expect(await page.content()).toContain(CANARY_BODY);
        await page.setContent(probePage(canary.port));
        await settle();
      });
      expect(canary.paths).toEqual(expect.arrayContaining(['/page', '/img', '/frame', '/fetch', '/ws']));
      expect(proxy.stats().allowed).toBeGreaterThanOrEqual(4);
      expect(proxy.stats().blocked).toBe(0);
    });
  });
});
