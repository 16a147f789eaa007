import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pixelAt, startFixtureServer, type FixtureServer } from '@app/testkit';
import { useRenderer } from './testing/render-harness.js';

// JavaScript dialogs and windows a page opens may never hold a render until its timeout: dialogs are
// dismissed at once, new windows closed at once. Each page paints green only when what it saw proves
// it (a dismissed confirm is false, a dismissed prompt null, every window it opened is closed), so a
// screenshot shows the effect inside the page; the timeout is far longer than any of these renders needs.
const GREEN = [0, 255, 0];
const TIMEOUT_MS = 15_000;
/** JavaScript that paints the page with the colour `expression` evaluates to. */
const paint = (expression: string) => `document.documentElement.style.background = ${expression}`;
const page = (body: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;height:100%}</style></head><body>${body}</body></html>`);
};

let fixture: FixtureServer;
beforeAll(async () => {
  fixture = await startFixtureServer({
    // A page that asks to stay when left, and a link that leaves it: the dismissed dialog keeps it.
    '/leave': page(
      `<a id="go" href="/red" style="display:block;height:100%">leave</a>
       <script>addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; }); ${paint("'#00ff00'")}</script>`,
    ),
  });
});
afterAll(() => fixture?.close());

const renderer = useRenderer();
const screenshot = (input: Record<string, unknown>) =>
  renderer.render('screenshot', { format: 'png', viewport_width: 200, viewport_height: 100, ...input }, TIMEOUT_MS);

describe('dialogs and popups', () => {
  describe.each([
    ['alert while the page loads', `<script>alert('hello'); ${paint("'#00ff00'")}</script>`],
    ['confirm', `<script>${paint("confirm('sure?') === false ? '#00ff00' : '#ff0000'")}</script>`],
    ['prompt', `<script>${paint("prompt('name?', 'x') === null ? '#00ff00' : '#ff0000'")}</script>`],
    ['alert after load, in a timer', `<script>setTimeout(() => { alert('later'); ${paint("'#00ff00'")} }, 50)</script>`],
  ])('When the page opens a dialog: %s', (_label, script) => {
    it('should dismiss it at once and render the page', async () => {
      const out = await screenshot({ html: `<!doctype html><html><body>${script}</body></html>`, delay: 0.5 });
      expect(await pixelAt(out.body, 100, 50)).toEqual(GREEN);
    });
  });

  describe('When a click would leave a page that asks to stay (beforeunload)', () => {
    it('should dismiss the dialog, so the page stays and renders', async () => {
      const out = await screenshot({ url: fixture.origin + '/leave', click_selector: '#go', delay: 0.5 });
      expect(await pixelAt(out.body, 100, 50)).toEqual(GREEN);
    });
  });

  describe('When a page calls window.open in its main frame, an iframe it makes, and on a click', () => {
    it('should get null every time (no window made), as from a popup blocker', async () => {
      // Judged when the click comes (however long the page's preparation took): unpainted without it.
      const html = `<!doctype html><html><body><button id="b" onclick="window.clicked = window.open('about:blank'); judge()" style="width:100%;height:100%">b</button><script>
        const frame = document.createElement('iframe'); document.body.appendChild(frame);
        window.results = [window.open('about:blank'), frame.contentWindow.open('about:blank'), window.open.call(window, '/x', '_blank')];
        function judge() { ${paint("[...window.results, window.clicked].every((w) => w === null) ? '#00ff00' : '#ff0000'")} }
      </script></body></html>`;
      const out = await screenshot({ html, click_selector: '#b', delay: 0.6 });
      expect(await pixelAt(out.body, 100, 50)).toEqual(GREEN);
    });
  });

  describe.each([
    ['by itself', '', 'openAll()'],
    ['when clicked (a user gesture)', 'click_selector', ''],
  ])('When a page opens 100 windows %s', (_label, click, onLoad) => {
    it('should close every one at once and render the page', async () => {
      // The page checks its windows 1 s later: green only if every one of them is closed by then.
      const html = `<!doctype html><html><body><button id="open" onclick="openAll()" style="width:100%;height:100%">open</button><script>
        function openAll() {
          const opened = [];
          for (let i = 0; i < 100; i++) opened.push(window.open('about:blank', 'w' + i));
          ${paint("'#0000ff'")};
          setTimeout(() => { ${paint("opened.every((w) => !w || w.closed) ? '#00ff00' : '#ff0000'")} }, 1000);
        }
        ${onLoad}
      </script></body></html>`;
      const out = await screenshot({ html, delay: 2, ...(click ? { click_selector: '#open' } : {}) });
      expect(await pixelAt(out.body, 100, 50)).toEqual(GREEN);
    });
  });
});
