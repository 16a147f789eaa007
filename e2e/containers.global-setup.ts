import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

// The container engine for e2e/compose.e2e.spec.ts: provisioned and the service image built from
// infra/Dockerfile in the background (scripts/prepare-containers.sh, at the lowest CPU and I/O priority)
// while the other tests run, awaited by the compose test itself; the engine's processes are stopped when
// the run ends. (Vitest runs every project's global setup before the first test, so a setup that built
// the image itself held the whole run back for as long as the build took.)

export interface ContainersContext {
  /** Where scripts/prepare-containers.sh writes `ready`, `skip` or `failed`. */
  stateDir: string;
}

/** What the compose test gets once preparation ended: the variables for docker-compose.yml, or why it skips. */
export interface Containers {
  env?: Record<string, string>;
  skip?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    containers: ContainersContext;
  }
}

const ROOT = resolve(import.meta.dirname, '..');

/** Waits for the background preparation to end; a failure to build is an error, not a skip. */
export async function containersReady(stateDir: string, timeoutMs: number): Promise<Containers> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const file = (name: string) => join(stateDir, name);
    if (existsSync(file('ready'))) {
      const env = Object.fromEntries(
        readFileSync(file('ready'), 'utf8')
          .split('\n')
          .map((line) => line.match(/^([A-Z_]+)=(.*)$/))
          .filter((m): m is RegExpMatchArray => m !== null)
          .map((m) => [m[1]!, m[2]!]),
      );
      return { env };
    }
    if (existsSync(file('skip'))) return { skip: readFileSync(file('skip'), 'utf8').trim() || 'containers cannot be had here' };
    if (existsSync(file('failed'))) throw new Error(`preparing the containers failed: ${readFileSync(file('failed'), 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`the containers were not ready within ${timeoutMs / 60_000} minutes (see ${stateDir})`);
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

export default function setup(project: TestProject) {
  const stateDir = mkdtempSync(join(tmpdir(), 'containers-'));
  const log = openSync(join(stateDir, 'prepare-containers.log'), 'a');
  const preparing = spawn('bash', [join(ROOT, 'scripts/prepare-containers.sh'), stateDir], { cwd: ROOT, detached: true, stdio: ['ignore', log, log] });
  let running = true;
  preparing.once('exit', () => (running = false));
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    // Still building (a run cut short, or one without the compose test's turn): the whole group goes.
    if (running && preparing.pid) {
      try {
        process.kill(-preparing.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    spawnSync('bash', [join(ROOT, 'scripts/ensure-containers.sh'), 'down', stateDir], { cwd: ROOT, timeout: 60_000 });
    rmSync(stateDir, { recursive: true, force: true });
  };
  // An interrupted run (Ctrl-C) skips the teardown: the engine's processes are stopped on exit anyway.
  process.once('exit', stop);
  project.provide('containers', { stateDir });
  return stop;
}
