import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer as createTcpServer, isIPv6, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTargetUrl, type LookupFn } from '@app/net-guard';
import { ensureSelfSignedCertificate } from '@app/stack';
import { openRoute } from './proxy-relay.js';
import { routeFor } from './route.js';
import { renderParams } from './testing/test-params.js';

// DNS rebinding against a caller's proxy: its name answers 127.0.0.1 when it is checked and 127.0.0.2
// on any later lookup. The proxy listens on 127.0.0.1, a canary on 127.0.0.2 (same port): the render's
// relay must dial the checked address, never ask again, and so never reach the canary.
let certDir: string;
let tls: { cert: string; key: string };

beforeAll(async () => {
  certDir = await mkdtemp(join(tmpdir(), 'relay-cert-'));
  const files = await ensureSelfSignedCertificate(certDir);
  tls = { cert: files.certPem, key: readFileSync(files.keyFile, 'utf8') };
});
afterAll(async () => {
  if (certDir) await rm(certDir, { recursive: true, force: true });
});

function listen(server: Server, host: string, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** Answers `first` for the first lookup of the name, `later` for every one after it. */
function rebindingLookup(first: string, later: string): LookupFn & { calls: number } {
  const lookup = async () => {
    const address = lookup.calls++ === 0 ? first : later;
    return [{ address, family: isIPv6(address) ? (6 as const) : (4 as const) }];
  };
  lookup.calls = 0;
  return lookup;
}

/** Asks the relay for a tunnel as Chromium would, and waits for its answer (or the connection's end). */
function askForTunnel(relayPort: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(relayPort, '127.0.0.1', () => socket.write('CONNECT site.example:443 HTTP/1.1\r\nHost: site.example:443\r\n\r\n'));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
      if (answer.includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
    socket.setTimeout(10_000, () => socket.destroy());
  });
}

describe('proxy relay', () => {
  describe.each(['https', 'http'] as const)("When the caller's %s proxy name is rebound after it was checked", (scheme) => {
    it('should dial the proxy at the checked address only', async () => {
      let atChecked = 0;
      let atCanary = 0;
      const proxy = scheme === 'https' ? createTlsServer(tls) : createTcpServer();
      proxy.on('connection', (socket) => {
        atChecked++;
        socket.on('error', () => undefined);
        if (scheme === 'http') socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n');
      });
      proxy.on('tlsClientError', () => undefined);
      const canary = createTcpServer((socket) => {
        atCanary++;
        socket.destroy();
      });
      const port = await listen(proxy, '127.0.0.1');
      await listen(canary, '127.0.0.2', port);
      const lookup = rebindingLookup('127.0.0.1', '127.0.0.2');
      try {
        const route = await routeFor(renderParams({ proxy: `${scheme}://user:secret@proxy.rebind.test:${port}` }), { allowPrivate: true, ipLocationProxies: {} }, (raw, opts) =>
          checkTargetUrl(raw, { ...opts, lookup }),
        );
        const open = await openRoute(route);
        try {
          await askForTunnel(Number(new URL(open.context!.proxyServer).port));
          await askForTunnel(Number(new URL(open.context!.proxyServer).port));
        } finally {
          await open.close();
        }
        expect(lookup.calls).toBe(1);
        expect(atChecked).toBeGreaterThanOrEqual(2);
        expect(atCanary).toBe(0);
      } finally {
        proxy.close();
        canary.close();
      }
    });
  });
});
