import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from './free-port.js';
import { waitHealthy } from './service-process.js';
import { superviseService, type SupervisedService } from './supervisor.js';
import { REPO_ROOT } from './stack.js';

/**
 * A service that binds its port and answers /readyz 200, or exits 1 when the port is taken (EADDRINUSE):
 * what a service does when another process holds its port at the instant it starts.
 */
const SERVICE = `
import { createServer } from 'node:http';
const server = createServer((_req, res) => res.end('ok'));
server.once('error', () => process.exit(1));
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

let dir: string | undefined;
let service: SupervisedService | undefined;
let holder: Server | undefined;

afterEach(async () => {
  await service?.stop(2_000);
  holder?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  service = holder = dir = undefined;
});

const hold = (port: number) =>
  new Promise<Server>((resolve) => {
    const server = createServer();
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

async function startWithPortTaken(): Promise<{ service: SupervisedService; url: string }> {
  dir = mkdtempSync(join(tmpdir(), 'wait-healthy-'));
  const entry = join(dir, 'service.mjs');
  writeFileSync(entry, SERVICE);
  const port = await freePort();
  holder = await hold(port);
  service = superviseService({ name: 'svc', entry, env: { ...process.env, PORT: String(port) }, logs: { kind: 'silent' }, cwd: REPO_ROOT, log: () => undefined });
  // Released once the first start failed on it, as a process probing the port would.
  void service.exited.then(() => holder?.close());
  return { service, url: `http://127.0.0.1:${port}/readyz` };
}

describe('waitHealthy', () => {
  describe('When a supervised service exits once at start because its port was taken for a moment', () => {
    it('should wait through the restart when exits are tolerated', async () => {
      const { service: s, url } = await startWithPortTaken();
      await waitHealthy(s, { url }, 30_000, 2);
      expect(s.restarts).toBeGreaterThanOrEqual(1);
    });

    it('should fail at the first exit when none is tolerated, naming the service and its code', async () => {
      const { service: s, url } = await startWithPortTaken();
      await expect(waitHealthy(s, { url }, 30_000)).rejects.toThrow('svc exited with code 1 before it was healthy');
    });
  });
});
