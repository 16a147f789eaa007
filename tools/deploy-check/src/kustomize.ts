import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseManifests, type Manifest } from './parse-manifests.js';

const run = promisify(execFile);

/** The kustomize version built into the kubectl on the PATH, or undefined when there is no kubectl. */
export async function kubectlKustomizeVersion(): Promise<string | undefined> {
  try {
    const { stdout } = await run('kubectl', ['version', '--client'], { timeout: 20_000 });
    return /Kustomize Version:\s*(\S+)/.exec(stdout)?.[1];
  } catch {
    return undefined;
  }
}

/** Renders a kustomization directory with `kubectl kustomize` into its manifests; a failure throws kubectl's message. */
export async function kustomize(dir: string): Promise<Manifest[]> {
  try {
    const { stdout } = await run('kubectl', ['kustomize', dir], { timeout: 60_000, maxBuffer: 32 * 1024 * 1024 });
    return parseManifests(stdout, dir);
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`kubectl kustomize ${dir} failed: ${(e.stderr || e.message).trim()}`);
  }
}
