import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { parseManifests, type Manifest } from './parse-manifests.js';

interface Kustomization {
  resources?: string[];
}

/**
 * The manifests a kustomization directory lists under `resources`, following other kustomization
 * directories, as written (before kustomize's transformations). Needs no kubectl.
 */
export function sourceManifests(dir: string, seen = new Set<string>()): { file: string; manifest: Manifest }[] {
  const root = resolve(dir);
  if (seen.has(root)) return [];
  seen.add(root);
  const k = parse(readFileSync(join(root, 'kustomization.yaml'), 'utf8')) as Kustomization;
  return (k.resources ?? []).flatMap((entry) => {
    const path = join(root, entry);
    if (statSync(path).isDirectory()) return sourceManifests(path, seen);
    return parseManifests(readFileSync(path, 'utf8'), path).map((manifest) => ({ file: path, manifest }));
  });
}
