import type { IncomingMessage, ServerResponse } from 'node:http';

/** A small page like a typical target: CSS, an image, a list and a table. */
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Bench page</title>
<link rel="stylesheet" href="/bench.css"></head><body>
<h1>Quarterly report</h1><img src="/bench.svg" width="320" height="120" alt="chart">
<ul>${Array.from({ length: 10 }, (_, i) => `<li>Item ${i + 1}: lorem ipsum dolor sit amet</li>`).join('')}</ul>
<table>${Array.from({ length: 12 }, (_, r) => `<tr>${Array.from({ length: 6 }, (_, c) => `<td>${r * 6 + c}</td>`).join('')}</tr>`).join('')}</table>
</body></html>`;

const CSS = 'body{font-family:sans-serif;margin:24px;color:#222}h1{color:#2a5db0}table{border-collapse:collapse}td{border:1px solid #ccc;padding:4px 8px}li:nth-child(odd){background:#f3f6fb}';

const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="120">${Array.from(
  { length: 8 },
  (_, i) => `<rect x="${i * 40 + 5}" y="${120 - (i + 2) * 10}" width="30" height="${(i + 2) * 10}" fill="#2a5db0"/>`,
).join('')}</svg>`;

const serve = (type: string, body: string) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
};

/** A long page (the small page eight times) for the scroll screencast. */
const LONG_PAGE = PAGE.replace(/<body>([\s\S]*)<\/body>/, (_, body: string) => `<body>${body.repeat(8)}</body>`);

/**
 * The small page with a cookie banner of a common consent platform (markup modelled on OneTrust's, which
 * the banner handling knows): fixed at the bottom of the viewport, closed by its "Reject all" button.
 */
const CONSENT_PAGE = PAGE.replace(
  '</body>',
  `<div id="onetrust-consent-sdk"><div id="onetrust-banner-sdk" class="otFlat" style="position:fixed;left:0;right:0;bottom:0;height:200px;background:#1f3b8a;color:#fff">
<p id="onetrust-policy-text">We use cookies to improve your experience.</p><div id="onetrust-button-group">
<button id="onetrust-pc-btn-handler">Cookie settings</button><button id="onetrust-reject-all-handler">Reject all</button>
<button id="onetrust-accept-btn-handler">Accept all cookies</button></div></div></div>
<script>window.OneTrust = {}; document.getElementById('onetrust-reject-all-handler').onclick = () => document.getElementById('onetrust-consent-sdk').remove();</script>
</body>`,
);

/** A 60,000 px page of 600 numbered bands, for full-page captures at their cap. */
const TALL_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Tall page</title></head><body style="margin:0">${Array.from(
  { length: 600 },
  (_, i) => `<div style="height:100px;background:hsl(${(i * 37) % 360},70%,50%)">band ${i}</div>`,
).join('')}</body></html>`;

export const BENCH_ROUTES = {
  '/bench-tall': serve('text/html; charset=utf-8', TALL_PAGE),
  '/bench-consent': serve('text/html; charset=utf-8', CONSENT_PAGE),
  '/bench': serve('text/html; charset=utf-8', PAGE),
  '/bench-long': serve('text/html; charset=utf-8', LONG_PAGE),
  '/bench.css': serve('text/css', CSS),
  '/bench.svg': serve('image/svg+xml', SVG),
};
