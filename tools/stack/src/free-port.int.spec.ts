import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimPort, freePort } from './free-port.js';

const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
const listenOn = (port: number) =>
  new Promise<() => Promise<void>>((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(() => new Promise((done) => server.close(() => done()))));
  });

describe('freePort', () => {
  describe('When ports are handed out for services that bind them later', () => {
    it('should hand out distinct ports below the range outgoing connections take, each bindable', async () => {
      const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
      expect(new Set(ports).size).toBe(ports.length);
      for (const port of ports) expect(port).toBeLessThan(ephemeralStart);
      const closers = await Promise.all(ports.map(listenOn));
      await Promise.all(closers.map((close) => close()));
    });
  });

  describe('When another live process has claimed a port', () => {
    it('should not claim it, and take over the claim once that process is gone', async () => {
      const port = await freePort();
      expect(readFileSync(join(tmpdir(), 'render-stack-ports', String(port)), 'utf8')).toBe(String(process.pid));
      const other = spawn('sleep', ['30'], { stdio: 'ignore' });
      try {
        writeFileSync(join(tmpdir(), 'render-stack-ports', String(port)), String(other.pid));
        expect(claimPort(port)).toBe(false);
      } finally {
        other.kill('SIGKILL');
        await new Promise((resolve) => other.once('exit', resolve));
      }
      expect(claimPort(port)).toBe(true);
      expect(readFileSync(join(tmpdir(), 'render-stack-ports', String(port)), 'utf8')).toBe(String(process.pid));
    });
  });
});
