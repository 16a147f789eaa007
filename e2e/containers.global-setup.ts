import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';

// The container engine for e2e/compose.e2e.spec.ts: provisioned (scripts/ensure-containers.sh), the
// service image built from infra/Dockerfile, and the engine's processes stopped when the run ends.

export interface ContainersContext {
  /** DOCKER_HOST and the image variables for docker-compose.yml; absent when containers cannot be had. */
  env?: Record<string, string>;
  /** Why the compose tests skip. */
  skip?: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    containers: ContainersContext;
  }
}

const ROOT = resolve(import.meta.dirname, '..');
const SCRIPT = join(ROOT, 'scripts/ensure-containers.sh');
export const SERVICE_IMAGE = 'localhost/render-service:test';

function run(cmd: string, args: string[], timeoutMs: number) {
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return { ...r, seconds: ((Date.now() - t0) / 1000).toFixed(1) };
}

export default function setup(project: TestProject) {
  const state = mkdtempSync(join(tmpdir(), 'containers-'));
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    run('bash', [SCRIPT, 'down', state], 60_000);
    rmSync(state, { recursive: true, force: true });
  };
  // An interrupted run (Ctrl-C) skips the teardown: the engine's processes are stopped on exit anyway.
  process.once('exit', stop);

  const up = run('bash', [SCRIPT, 'up', state], 20 * 60_000);
  if (up.status !== 0) {
    const reason = up.stderr.match(/SKIP: (.*)/)?.[1] ?? `ensure-containers.sh failed (${up.status ?? up.signal}): ${up.stderr.trim().split('\n').slice(-3).join(' / ')}`;
    console.warn(`[containers] compose tests skip: ${reason}`);
    project.provide('containers', { skip: reason });
    return stop;
  }
  const env = Object.fromEntries(
    up.stdout
      .split('\n')
      .map((line) => line.match(/^([A-Z_]+)=(.*)$/))
      .filter((m): m is RegExpMatchArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
  console.warn(`[containers] engine ready in ${up.seconds} s`);

  const build = run(
    'podman',
    ['build', '--format', 'docker', '--network', 'host', '--build-arg', `NODE_IMAGE=${env.NODE_IMAGE}`, '-t', SERVICE_IMAGE, '-f', 'infra/Dockerfile', '.'],
    30 * 60_000,
  );
  if (build.status !== 0) {
    stop();
    throw new Error(`building the service image failed:\n${build.stderr.split('\n').slice(-30).join('\n')}`);
  }
  console.warn(`[containers] image ${SERVICE_IMAGE} built in ${build.seconds} s`);
  project.provide('containers', { env: { ...env, RENDER_SERVICE_IMAGE: SERVICE_IMAGE } });
  return stop;
}
