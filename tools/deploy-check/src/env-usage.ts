import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Manifest } from './parse-manifests.js';
import { find, podTemplateOf } from './workloads.js';

/** Variables read by Node.js, by libraries or by Chromium rather than by the project's code. */
const READ_OUTSIDE_THE_PROJECT = new Set(['NODE_OPTIONS', 'NODE_ENV', 'HOME']);

function sourcesUnder(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'));
}

/**
 * Whether a service reads an environment variable: its name appears in the service's own sources or
 * in a shared library's (services/<service>/src, libs/<lib>/src, tests excluded).
 */
export function variableReaders(repoRoot: string): (service: string | undefined, name: string) => boolean {
  const libs = readdirSync(join(repoRoot, 'libs')).flatMap((l) => sourcesUnder(join(repoRoot, 'libs', l, 'src')));
  const services = new Map<string, string[]>();
  const servicesOf = (s: string) => {
    if (!services.has(s)) services.set(s, sourcesUnder(join(repoRoot, 'services', s, 'src')));
    return services.get(s)!;
  };
  const mentioned = (texts: string[], name: string) => texts.some((t) => new RegExp(`\\b${name}\\b`).test(t));
  return (service, name) =>
    READ_OUTSIDE_THE_PROJECT.has(name) ||
    mentioned(libs, name) ||
    (service ? mentioned(servicesOf(service), name) : readdirSync(join(repoRoot, 'services')).some((s) => mentioned(servicesOf(s), name)));
}

/**
 * Variables the manifests set that nothing reads (a misspelt name configures nothing, silently): each
 * container's own `env` must be read by its service (the container's name) or a library; each key of a
 * ConfigMap or Secret given whole through `envFrom` by some service or library.
 */
export function unreadVariables(manifests: Manifest[], reads: (service: string | undefined, name: string) => boolean): string[] {
  const problems: string[] = [];
  const sharedKeys = new Map<string, string>();
  for (const m of manifests) {
    const template = podTemplateOf(m);
    for (const c of template?.spec.containers ?? []) {
      const service = c.args?.some((a) => a.startsWith(`services/${c.name}/`)) ? c.name : undefined;
      if (!service) continue;
      for (const e of c.env ?? []) if (!reads(service, e.name)) problems.push(`${m.kind} ${m.metadata?.name}: ${e.name} is read by neither ${service} nor a library`);
      for (const from of c.envFrom ?? []) {
        const source = from.configMapRef ? find(manifests, 'ConfigMap', from.configMapRef.name) : from.secretRef ? find(manifests, 'Secret', from.secretRef.name) : undefined;
        for (const key of Object.keys({ ...source?.data, ...source?.stringData })) sharedKeys.set(key, `${source?.kind} ${source?.metadata?.name}`);
      }
    }
  }
  for (const [key, owner] of sharedKeys) if (!reads(undefined, key)) problems.push(`${owner}: ${key} is read by no service`);
  return problems;
}
