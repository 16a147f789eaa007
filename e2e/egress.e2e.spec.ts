import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureSelfSignedCertificate } from '@app/stack';
import { startFixtureServer, startForwardProxy, startTestStack, type FixtureServer, type ForwardProxy, type TestStack } from '@app/testkit';

// What a target page and a caller's proxy receive, seen where it lands (the page's and the proxy's own
// record of the header lines they got), with the services as `npm start` runs them: with the
// OpenTelemetry instrumentation hook loaded, which is what used to garble relayed requests.
let stack: TestStack;
let echo: FixtureServer;
let secureEcho: FixtureServer;
let httpProxy: ForwardProxy;
let httpsProxy: ForwardProxy;
let certDir: string;

const PROXY_CREDENTIALS = { username: 'proxy user', password: 'pa:ss@word' };
const PROXY_AUTHORIZATION = `Basic ${Buffer.from(`${PROXY_CREDENTIALS.username}:${PROXY_CREDENTIALS.password}`).toString('base64')}`;
const AUTHORIZATION = Buffer.from('reader:open sesame').toString('base64');
const USER_AGENT = 'EgressTest/1.0 (X11; fidelity) Probe/2';
const REQUEST = {
  headers: ['X-Test-One: a=1, b="two words"', 'X-Test-Two: Zm9v/+=; X-Test-Three: three'],
  cookies: 'session=abc123; theme=dark%20blue',
  user_agent: USER_AGENT,
  authorization: AUTHORIZATION,
};

const page = (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end('<!doctype html><html><body><p>echo</p></body></html>');
};

beforeAll(async () => {
  certDir = mkdtempSync(join(tmpdir(), 'egress-cert-'));
  const tls = await ensureSelfSignedCertificate(certDir);
  const pems = { cert: tls.certPem, key: readFileSync(tls.keyFile, 'utf8') };
  echo = await startFixtureServer({ '/echo': page });
  secureEcho = await startFixtureServer({ '/echo': page }, { tls: pems });
  httpProxy = await startForwardProxy(PROXY_CREDENTIALS);
  httpsProxy = await startForwardProxy({ ...PROXY_CREDENTIALS, tls: pems });
  // The renderer trusts the test certificate as an operator would: for the https proxy (NODE_EXTRA_CA_CERTS)
  // and, in the browsers, for the https page (RENDERER_TRUSTED_CERTS).
  stack = await startTestStack({
    renderers: 1,
    env: { ALLOW_PRIVATE_TARGETS: '1', NODE_EXTRA_CA_CERTS: tls.certFile, RENDERER_TRUSTED_CERTS: tls.certFile },
  });
});

afterAll(async () => {
  await stack?.stop();
  await Promise.all([echo?.close(), secureEcho?.close(), httpProxy?.close(), httpsProxy?.close()]);
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

const key = () => ({ 'x-access-key': stack.demo.accessKey });

function lines(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
  return out;
}
const valuesOf = (raw: string[], name: string) => lines(raw).filter(([n]) => n === name).map(([, v]) => v);
const TRACE_HEADERS = ['traceparent', 'tracestate', 'baggage'];

function expectExactPageRequest(raw: string[], host: string): void {
  const names = lines(raw).map(([n]) => n);
  expect(names.filter((n) => /^\d+$/.test(n)), 'numbered header lines').toEqual([]);
  expect(names.filter((n) => TRACE_HEADERS.includes(n)), 'trace context').toEqual([]);
  expect(valuesOf(raw, 'host')).toEqual([host]);
  expect(valuesOf(raw, 'x-test-one')).toEqual(['a=1, b="two words"']);
  expect(valuesOf(raw, 'x-test-two')).toEqual(['Zm9v/+=']);
  expect(valuesOf(raw, 'x-test-three')).toEqual(['three']);
  expect(valuesOf(raw, 'user-agent')).toEqual([USER_AGENT]);
  expect(valuesOf(raw, 'authorization')).toEqual([`Basic ${AUTHORIZATION}`]);
  expect(valuesOf(raw, 'cookie').flatMap((c) => c.split('; ')).sort()).toEqual(['session=abc123', 'theme=dark%20blue']);
  expect(valuesOf(raw, 'proxy-authorization')).toEqual([]);
}

describe('What a page receives', () => {
  const ROUTES = [
    ['directly (through the egress guard)', () => undefined],
    ["through the caller's http proxy with credentials", () => httpProxy],
    ["through the caller's https proxy with credentials", () => httpsProxy],
  ] as const;
  const CASES = ['http', 'https'].flatMap((scheme) => ROUTES.map(([label, proxyOf]) => [scheme, label, proxyOf] as const));

  describe.each(CASES)('When an %s page is rendered %s', (scheme, _label, proxyOf) => {
    it("should get the caller's headers, cookies, user_agent and authorization as they were given, the right Host and no trace context", async () => {
      const proxy = proxyOf();
      const server = scheme === 'https' ? secureEcho : echo;
      const url = `${server.origin}/echo?case=${Math.random().toString(36).slice(2)}`;
      const seenBefore = proxy?.requests.length ?? 0;
      const res = await stack.call('POST', '/v1/scrape', { headers: key(), json: { url, ...REQUEST, ...(proxy ? { proxy: proxy.url } : {}) } });
      expect(res.status, res.body.toString().slice(0, 300)).toBe(200);
      expect(res.body.toString()).toContain('<p>echo</p>');

      const got = server.requests.filter((r) => r.path === '/echo' && r.rawHeaders.length > 0).at(-1)!;
      expect(got).toBeDefined();
      expectExactPageRequest(got.rawHeaders, `127.0.0.1:${server.port}`);

      if (proxy) {
        expect(proxy.challenged, 'requests the proxy refused for their credentials').toBe(0);
        // A plain request names the URL; an https page is asked for as a tunnel to its authority.
        const target = scheme === 'https' ? `127.0.0.1:${server.port}` : url;
        const asked = proxy.requests.slice(seenBefore).find((r) => r.target === target);
        expect(asked, `the proxy was asked for ${target}`).toBeDefined();
        expect(valuesOf(asked!.rawHeaders, 'proxy-authorization')).toEqual([PROXY_AUTHORIZATION]);
        expect(lines(asked!.rawHeaders).filter(([n]) => TRACE_HEADERS.includes(n) || /^\d+$/.test(n))).toEqual([]);
      }
    });
  });
});
