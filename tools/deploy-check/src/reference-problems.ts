import type { Manifest } from './parse-manifests.js';
import { find, podTemplateOf, selects, type Container, type Probe } from './workloads.js';

/**
 * What the schemas cannot see and the API server would not catch either until something fails at run
 * time: references between objects. Returns the problems, each naming the object.
 * `external` lists Secrets the operator creates (they are referenced but deliberately not rendered).
 */
export function referenceProblems(manifests: Manifest[], external: { secrets: string[] }): string[] {
  const problems: string[] = [];
  const has = (kind: string, name: string) => !!find(manifests, kind, name);
  const secretExists = (name: string) => has('Secret', name) || external.secrets.includes(name);
  const templates = manifests.flatMap((m) => {
    const t = podTemplateOf(m);
    return t ? [{ owner: m, template: t }] : [];
  });

  for (const { owner, template } of templates) {
    const id = `${owner.kind} ${owner.metadata?.name}`;
    const selector = owner.spec?.['selector'] as Parameters<typeof selects>[0];
    if (owner.kind !== 'Job' && !selects(selector, template.metadata?.labels)) problems.push(`${id}: its selector does not select its own pods`);
    const claims = ((owner.spec?.['volumeClaimTemplates'] as { metadata?: { name?: string } }[] | undefined) ?? []).map((c) => c.metadata?.name ?? '');
    const volumes = new Set([...(template.spec.volumes ?? []).map((v) => v.name), ...claims]);
    for (const v of template.spec.volumes ?? []) {
      if (v.secret && !secretExists(v.secret.secretName)) problems.push(`${id}: volume ${v.name} names a missing Secret ${v.secret.secretName}`);
      if (v.configMap && !has('ConfigMap', v.configMap.name)) problems.push(`${id}: volume ${v.name} names a missing ConfigMap ${v.configMap.name}`);
    }
    for (const c of template.spec.containers) {
      problems.push(...containerProblems(id, c, volumes, has, secretExists));
    }
  }

  // Everything that selects pods must select some.
  const podLabels = templates.map((t) => t.template.metadata?.labels);
  for (const m of manifests) {
    const id = `${m.kind} ${m.metadata?.name}`;
    const spec = m.spec ?? {};
    if (m.kind === 'Service' || m.kind === 'PodDisruptionBudget' || m.kind === 'NetworkPolicy') {
      const raw = m.kind === 'Service' ? { matchLabels: spec['selector'] as Record<string, string> } : (spec[m.kind === 'NetworkPolicy' ? 'podSelector' : 'selector'] as Parameters<typeof selects>[0]);
      const selectsAll = m.kind === 'NetworkPolicy' && Object.keys(raw?.matchLabels ?? {}).length === 0 && !raw?.matchExpressions;
      if (!selectsAll && !podLabels.some((l) => selects(raw, l))) problems.push(`${id}: selects no pod`);
    }
    if (m.kind === 'HorizontalPodAutoscaler') {
      const ref = spec['scaleTargetRef'] as { kind: string; name: string };
      if (!has(ref.kind, ref.name)) problems.push(`${id}: scales a missing ${ref.kind} ${ref.name}`);
    }
    if (m.kind === 'ScaledObject') {
      const ref = spec['scaleTargetRef'] as { kind?: string; name: string };
      if (!has(ref.kind ?? 'Deployment', ref.name)) problems.push(`${id}: scales a missing ${ref.kind ?? 'Deployment'} ${ref.name}`);
    }
  }
  // Two autoscalers on one workload fight each other.
  const targets = manifests
    .filter((m) => m.kind === 'HorizontalPodAutoscaler' || m.kind === 'ScaledObject')
    .map((m) => (m.spec?.['scaleTargetRef'] as { name: string }).name);
  for (const t of new Set(targets)) if (targets.filter((x) => x === t).length > 1) problems.push(`${t}: scaled by more than one autoscaler`);
  return problems;
}

function containerProblems(
  id: string,
  c: Container,
  volumes: Set<string>,
  has: (kind: string, name: string) => boolean,
  secretExists: (name: string) => boolean,
): string[] {
  const problems: string[] = [];
  const where = `${id} container ${c.name}`;
  const portNames = new Set((c.ports ?? []).flatMap((p) => (p.name ? [p.name] : [])));
  const probes: [string, Probe | undefined][] = [
    ['startupProbe', c.startupProbe],
    ['livenessProbe', c.livenessProbe],
    ['readinessProbe', c.readinessProbe],
  ];
  for (const [name, probe] of probes) {
    const port = probe?.httpGet?.port;
    if (typeof port === 'string' && !portNames.has(port)) problems.push(`${where}: ${name} uses an unnamed port ${port}`);
  }
  for (const m of c.volumeMounts ?? []) if (!volumes.has(m.name)) problems.push(`${where}: mounts a missing volume ${m.name}`);
  for (const from of c.envFrom ?? []) {
    if (from.configMapRef && !has('ConfigMap', from.configMapRef.name)) problems.push(`${where}: envFrom a missing ConfigMap ${from.configMapRef.name}`);
    if (from.secretRef && !secretExists(from.secretRef.name)) problems.push(`${where}: envFrom a missing Secret ${from.secretRef.name}`);
  }
  for (const e of c.env ?? []) {
    const s = e.valueFrom?.secretKeyRef;
    if (s && !secretExists(s.name)) problems.push(`${where}: ${e.name} from a missing Secret ${s.name}`);
  }
  return problems;
}
