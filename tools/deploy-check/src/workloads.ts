import type { Manifest } from './parse-manifests.js';

export interface Port {
  name?: string;
  containerPort: number;
}
export interface Probe {
  httpGet?: { path?: string; port: number | string };
}
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}
export interface Container {
  name: string;
  image?: string;
  args?: string[];
  ports?: Port[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string }[];
}
export interface Volume {
  name: string;
  emptyDir?: { medium?: string; sizeLimit?: string };
  secret?: { secretName: string };
  configMap?: { name: string };
}
export interface PodTemplate {
  metadata?: { labels?: Record<string, string> };
  spec: { containers: Container[]; volumes?: Volume[] };
}

export const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'Job']);

/** The pod template of a Deployment, StatefulSet or Job. */
export const podTemplateOf = (m: Manifest): PodTemplate | undefined =>
  WORKLOAD_KINDS.has(m.kind ?? '') ? (m.spec?.['template'] as PodTemplate | undefined) : undefined;

export const find = (manifests: Manifest[], kind: string, name: string): Manifest | undefined =>
  manifests.find((m) => m.kind === kind && m.metadata?.name === name);

/** Whether a label selector's matchLabels / matchExpressions(In) select the given labels. */
export function selects(
  selector: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] } | undefined,
  labels: Record<string, string> | undefined,
): boolean {
  if (!selector) return false;
  const l = labels ?? {};
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => l[k] === v);
  const byExpressions = (selector.matchExpressions ?? []).every((e) =>
    e.operator === 'In' ? e.values?.includes(l[e.key] ?? '') === true : e.operator === 'Exists' ? e.key in l : true,
  );
  return byLabels && byExpressions;
}
