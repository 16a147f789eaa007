import { Namespace, ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';

/**
 * The Kubernetes API version whose OpenAPI schemas validate the manifests: kubernetes-models 4.5 is
 * generated from Kubernetes v1.33.0 (its schemas compiled to validators by ajv), and
 * @kubernetes-models/keda from KEDA's CRDs.
 */
export const KUBERNETES_SCHEMA_VERSION = 'v1.33.0';

interface Validatable {
  validate(): void;
}
type ModelClass = new (data: never) => Validatable;

/** The kinds the manifests may use, by `apiVersion/kind`. A kind not listed here has no schema: an error. */
const MODELS: Record<string, ModelClass> = Object.fromEntries(
  [Namespace, ConfigMap, Secret, Service, Deployment, StatefulSet, Job, HorizontalPodAutoscaler, PodDisruptionBudget, NetworkPolicy, ScaledObject].map(
    (model) => [`${model.apiVersion}/${model.kind}`, model as unknown as ModelClass],
  ),
);

export const knownKinds = (): string[] => Object.keys(MODELS).sort();

/**
 * Validates one manifest against its kind's schema. Returns the problems (empty when valid), each
 * naming the object and where in it.
 */
export function schemaProblems(manifest: unknown): string[] {
  if (!manifest || typeof manifest !== 'object' || Array.isArray(manifest)) return ['a manifest must be a mapping'];
  const m = manifest as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown } };
  const id = `${String(m.kind)} ${String(m.metadata?.name)}`;
  const Model = MODELS[`${String(m.apiVersion)}/${String(m.kind)}`];
  if (!Model) return [`${id}: no schema for apiVersion "${String(m.apiVersion)}" kind "${String(m.kind)}"`];
  try {
    new Model(manifest as never).validate();
    return [];
  } catch (err) {
    return [`${id}: ${(err as Error).message}`];
  }
}
