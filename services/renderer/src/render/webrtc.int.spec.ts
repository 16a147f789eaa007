import { createSocket, type Socket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEgressProxy, type EgressProxy } from '@app/net-guard';
import { pixelAt, startFixtureServer, type FixtureServer } from '@app/testkit';
import { CHROMIUM_CANDIDATES, chromiumFlags, createProfileDir, findChromium, isHeadlessShell, type ProfileDir } from '../browser/index.js';
import { countdown } from './countdown.js';
import { navigate } from './navigate.js';
import { setupPage } from './page-setup.js';
import { useRenderer } from './testing/render-harness.js';
import { renderParams } from './testing/test-params.js';

// A hostile page tries WebRTC towards a UDP canary on 127.0.0.1 and [::1] (STUN, TURN, data channels) from
// its main frame, static, srcdoc and script-made iframes, and a window it opens, loaded from a `url` and
// given as `html`. Nothing may reach the
// canary: seen by real dgram listeners. The containment has layers (the profile's preferences, the page
// setup removing WebRTC, a Chromium flag); each is also tested alone, without the flag, so the guarantee
// does not rest on one flag being honoured.
let canary: { port: number; packets: number; close(): void };
let fixture: FixtureServer;
let guard: EgressProxy;

async function startUdpCanary(): Promise<typeof canary> {
  const sockets: Socket[] = [createSocket('udp4'), createSocket({ type: 'udp6', ipv6Only: true })];
  const state = { packets: 0 };
  for (const socket of sockets) socket.on('message', () => void state.packets++);
  await new Promise<void>((resolve) => sockets[0]!.bind(0, '127.0.0.1', resolve));
  const port = sockets[0]!.address().port;
  await new Promise<void>((resolve) => sockets[1]!.bind(port, '::1', resolve));
  return {
    port,
    get packets() {
      return state.packets;
    },
    close: () => sockets.forEach((s) => s.close()),
  };
}

const FRAMES = ['main', 'static', 'srcdoc', 'script-made'];

/**
 * Tries WebRTC in `window`, in iframes of every kind and (when `popup`) in a window it opens; reports
 * what it saw. The static iframe's address is absolute so the page works as `html` input too.
 */
function hostileHtml(popup: boolean): string {
  const servers = JSON.stringify([
    { urls: [`stun:127.0.0.1:${canary.port}`, `stun:[::1]:${canary.port}`] },
    { urls: [`turn:127.0.0.1:${canary.port}?transport=udp`, `turn:[::1]:${canary.port}?transport=udp`], username: 'u', credential: 'p' },
  ]);
  return `<!doctype html><html><body><iframe id="static" src="${fixture.origin}/frame"></iframe><iframe id="srcdoc" srcdoc="<p>inner</p>"></iframe>
<pre id="out"></pre><div id="verdict" style="position:fixed;inset:0;background:#0000ff"></div><script>
const out = [];
// The verdict is painted too (for renders whose output is an image): green when every frame of the
// page reported no WebRTC (an opened window is the profile's to contain) and nothing anywhere gathered
// a candidate, red otherwise.
const clean = () => ${JSON.stringify(FRAMES)}.every((f) => out.includes(f + ' RTCPeerConnection=undefined webkitRTCPeerConnection=undefined'))
  && !out.some((line) => /candidate|error/.test(line));
const report = () => {
  document.getElementById('out').textContent = out.join('\\n');
  document.getElementById('verdict').style.background = clean() ? '#00ff00' : '#ff0000';
};
function attempt(label, w) {
  try {
    out.push(label + ' RTCPeerConnection=' + typeof w.RTCPeerConnection + ' webkitRTCPeerConnection=' + typeof w.webkitRTCPeerConnection);
    const C = w.RTCPeerConnection || w.webkitRTCPeerConnection;
    if (!C) return;
    const pc = new C({ iceServers: ${servers} });
    pc.createDataChannel('probe');
    pc.onicecandidate = (e) => { if (e.candidate) out.push(label + ' candidate'); report(); };
    pc.createOffer().then((o) => pc.setLocalDescription(o)).catch(() => {});
  } catch (err) { out.push(label + ' error ' + err); }
}
attempt('main', window);
attempt('static', document.getElementById('static').contentWindow);
attempt('srcdoc', document.getElementById('srcdoc').contentWindow);
const made = document.createElement('iframe'); document.body.appendChild(made); attempt('script-made', made.contentWindow);
${popup ? "try { const w = window.open('about:blank'); if (w) attempt('popup', w); } catch (err) { out.push('popup error ' + err); }" : ''}
report();
</script></body></html>`;
}

const hostilePage = (popup: boolean) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(hostileHtml(popup));
};

beforeAll(async () => {
  canary = await startUdpCanary();
  fixture = await startFixtureServer({
    '/hostile': hostilePage(true),
    '/hostile-no-popup': hostilePage(false),
    '/frame': (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>frame</p>'),
  });
  guard = await startEgressProxy({ allowPrivate: true });
});

afterAll(async () => {
  canary?.close();
  await fixture?.close();
  await guard?.close();
});

/** ICE gathering towards the canary starts at once and retries for seconds: give it time to show. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 3_000));

describe('WebRTC containment', () => {
  describe('When a render (the service as deployed) runs a page that tries WebRTC everywhere', () => {
    const r = useRenderer(() => ({ pool: { proxyUrl: guard.url } }));

    it('should find no RTCPeerConnection in the page or any of its iframes, and send the canary nothing', async () => {
      const before = canary.packets;
      const html = (await r.render('scrape', { url: `${fixture.origin}/hostile`, delay: 3 })).body.toString();
      const seen = /<pre id="out">([^<]*)<\/pre>/.exec(html)?.[1] ?? '';
      for (const frame of FRAMES) expect(seen).toContain(`${frame} RTCPeerConnection=undefined webkitRTCPeerConnection=undefined`);
      expect(seen).not.toContain('candidate');
      await settle();
      expect(canary.packets - before).toBe(0);
    });

    it('should do the same for the page given as html (its verdict painted green), sending the canary nothing', async () => {
      const before = canary.packets;
      const shot = await r.render('screenshot', { html: hostileHtml(true), delay: 3, viewport_width: 200, viewport_height: 100 });
      const [red, green] = await pixelAt(shot.body, 100, 50);
      expect({ red, green }).toEqual({ red: expect.toBeOneOf([0, 1, 2]), green: expect.toBeOneOf([253, 254, 255]) });
      await settle();
      expect(canary.packets - before).toBe(0);
    });
  });

  describe('When one layer works alone', () => {
    let browser: Browser | undefined;
    let profile: ProfileDir | undefined;
    const executablePath = findChromium();
    const flags = (userDataDir: string, binary = executablePath) =>
      chromiumFlags({ userDataDir, runningAsRoot: process.getuid?.() === 0, headlessShell: isHeadlessShell(binary) });
    // The browser's own layer is checked on each of Debian's two builds that is installed.
    const binaries = [...new Set([executablePath, ...CHROMIUM_CANDIDATES.filter((path) => path.startsWith('/usr/lib/') && existsSync(path))])];

    afterAll(async () => {
      await browser?.close();
      await profile?.remove();
    });

    async function launch(args: string[], binary = executablePath): Promise<Browser> {
      await browser?.close();
      browser = await puppeteer.launch({ executablePath: binary, headless: isHeadlessShell(binary) ? 'shell' : true, pipe: true, args });
      return browser;
    }

    // The page setup runs before the page's own navigation, exactly as a render does (navigate()).
    it.each([
      ['url', () => renderParams({ url: `${fixture.origin}/hostile-no-popup` })],
      ['html', () => renderParams({ html: hostileHtml(false) })],
    ])('should, with the page setup alone (an empty profile), leave no WebRTC in any frame (%s input) and send nothing', async (_kind, params) => {
      await profile?.remove();
      profile = await createProfileDir();
      await rm(`${profile.userDataDir}/Default`, { recursive: true, force: true }); // no preferences
      const withoutFlag = flags(profile.userDataDir).filter((flag) => !flag.includes('webrtc'));
      const page = await (await (await launch(withoutFlag)).createBrowserContext()).newPage();
      await setupPage(page, params(), 'screenshot');
      const before = canary.packets;
      await navigate(page, params(), countdown({ timeoutMs: 10_000 }));
      await settle();
      const text = await page.$eval('#out', (el) => el.textContent ?? '');
      for (const frame of FRAMES) expect(text).toContain(`${frame} RTCPeerConnection=undefined`);
      expect(canary.packets - before).toBe(0);
    });

    it.each(
      binaries.flatMap((binary) => [
        [binary, 'url', () => renderParams({ url: `${fixture.origin}/hostile` })] as const,
        [binary, 'html', () => renderParams({ html: hostileHtml(true) })] as const,
      ]),
    )("should, in %s with its own layer alone (launch flag and profile, no page setup), send nothing (%s input), not even from an opened window", async (binary, _kind, params) => {
      // The full browser holds to the profile's preferences, the headless shell to the flag: the service
      // launches with both.
      await profile?.remove();
      profile = await createProfileDir();
      const page = await (await (await launch(flags(profile.userDataDir, binary), binary)).createBrowserContext()).newPage();
      const before = canary.packets;
      await navigate(page, params(), countdown({ timeoutMs: 10_000 }));
      await settle();
      const text = await page.$eval('#out', (el) => el.textContent ?? '');
      expect(text).toContain('main RTCPeerConnection=function'); // the API is there: only the preferences hold
      expect(text).toContain('popup RTCPeerConnection=function');
      expect(canary.packets - before).toBe(0);
    });
  });
});
