import { createServer as createHttpsServer, get } from 'node:https';
import { Socket, type AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '@app/logging';
import { ensureSelfSignedCertificate } from '@app/stack';
import { buildServer } from './build-server.js';
import { coalesceSocketWrites } from './coalesced-writes.js';

// What coalesced-writes.ts relies on in Node's sockets. A Node release that changes it fails here, before
// the edge ships with a patch that no longer holds (or no longer sees) its writes.

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const tls = async () => {
  const files = await ensureSelfSignedCertificate(mkdtempSync(join(tmpdir(), 'coalesce-tls-')));
  return { cert: readFileSync(files.certFile), key: readFileSync(files.keyFile), ca: files.certPem };
};

describe("Node's sockets, as coalesced writes patch them", () => {
  describe('When the socket prototypes are inspected', () => {
    it('should have _write(chunk, encoding, callback), _writev(chunks, callback) and destroy(error, callback), shared by TLS sockets', () => {
      const members = ['_write', '_writev', 'destroy'] as const;
      const proto = Socket.prototype as unknown as Record<(typeof members)[number], (...args: unknown[]) => unknown>;
      expect(members.map((m) => [m, typeof proto[m], proto[m].length])).toEqual([
        ['_write', 'function', 3],
        ['_writev', 'function', 2],
        ['destroy', 'function', 2],
      ]);
      // A TLS connection writes its cleartext through the same members (encryption happens below them).
      for (const m of members) expect((TLSSocket.prototype as unknown as Record<string, unknown>)[m]).toBe(proto[m]);
    });
  });

  describe('When an HTTPS response is sent on a connection whose writes are coalesced', () => {
    it("should reach Node's _write/_writev only at the end of the turn, through the patch", async () => {
      const { cert, key, ca } = await tls();
      // Node's own members, watched: when are they called, inside the handler's send or after it?
      const proto = Socket.prototype as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
      const original = { _write: proto._write, _writev: proto._writev };
      let sending = false;
      const accepted = new Set<Socket>();
      const calls: { member: string; duringSend: boolean }[] = [];
      for (const member of ['_write', '_writev'] as const) {
        proto[member] = function (this: Socket, ...args: unknown[]) {
          // The server's side only (the client in this process writes through them too).
          if (accepted.has(this)) calls.push({ member, duringSend: sending });
          return original[member].apply(this, args);
        };
      }
      closers.push(async () => Object.assign(proto, original));
      const server = createHttpsServer({ cert, key }, (_req, res) => {
        sending = true;
        res.end('hello');
        sending = false;
      });
      coalesceSocketWrites(server);
      const patched: boolean[] = [];
      server.on('secureConnection', (socket: TLSSocket) => {
        accepted.add(socket);
        patched.push(['_write', '_writev', 'destroy'].every((m) => Object.hasOwn(socket, m)));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      closers.push(() => new Promise((resolve) => server.close(resolve)));
      const { port } = server.address() as AddressInfo;

      const body = await new Promise<string>((resolve, reject) => {
        get({ host: '127.0.0.1', port, path: '/', ca, servername: 'localhost', agent: false }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve(text));
        }).on('error', reject);
      });
      expect(body).toBe('hello');
      expect(patched).toEqual([true]);
      // The response reached Node's members (the path is taken), none of it during the send (it was held).
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.filter((c) => c.duringSend)).toEqual([]);
    });
  });
});

describe('The EDGE_COALESCE_WRITES switch', () => {
  const unused = () => {
    throw new Error('not called by these tests');
  };
  /** Whether the edge's server patched the connection it accepted. */
  async function patchedWith(coalesceWrites: boolean): Promise<boolean> {
    const app = await buildServer({
      logger: createLogger('edge-http-test', { level: 'silent' }),
      bodyLimitBytes: 1024,
      coalesceWrites,
      authQuota: { admit: unused, tryNow: () => undefined, leasesKey: () => false, reserve: unused, usage: unused },
      renderSync: unused,
      health: async () => ({}),
    });
    closers.push(() => app.close());
    const accepted = new Promise<Socket>((resolve) => app.server.once('connection', resolve));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const client = new Socket().connect((app.server.address() as AddressInfo).port, '127.0.0.1');
    const socket = await accepted;
    // The edge's own listener ran first: it was registered when the server was made.
    const patched = Object.hasOwn(socket, '_write');
    client.destroy();
    return patched;
  }

  describe('When it is on', () => {
    it("should patch every connection the edge's server accepts", async () => {
      expect(await patchedWith(true)).toBe(true);
    });
  });

  describe('When it is off', () => {
    it('should leave the connections as Node made them', async () => {
      expect(await patchedWith(false)).toBe(false);
    });
  });
});
