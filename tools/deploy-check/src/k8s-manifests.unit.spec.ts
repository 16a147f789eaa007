import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RENDERER_JOBS_CONSUMER, STREAMS } from '@app/messaging';
import {
  find,
  kubectlKustomizeVersion,
  kustomize,
  podTemplateOf,
  referenceProblems,
  schemaProblems,
  sourceManifests,
  unreadVariables,
  variableReaders,
  type Container,
  type Manifest,
} from './index.js';

const repo = resolve(fileURLToPath(new URL('../../..', import.meta.url)));
const k8s = join(repo, 'infra/k8s');
const OVERLAYS = ['cpu-autoscaling', 'keda'];
/** Secrets the operator creates (docs/kubernetes.md): referenced, deliberately not in the manifests. */
const EXTERNAL = { secrets: ['edge-tls', 'render-service-keys'] };
const SERVICES = {
  'edge-http': 'EDGE_HEALTH_PORT',
  'auth-quota': 'AUTH_QUOTA_HEALTH_PORT',
  renderer: 'RENDERER_HEALTH_PORT',
  scheduler: 'SCHEDULER_HEALTH_PORT',
  'webhook-dispatcher': 'WEBHOOK_HEALTH_PORT',
} as const;

const reads = variableReaders(repo);

const containerOf = (manifests: Manifest[], kind: string, name: string): Container => {
  const c = podTemplateOf(find(manifests, kind, name)!)?.spec.containers[0];
  if (!c) throw new Error(`${kind} ${name} has no container`);
  return c;
};

describe('The manifests as written (no kubectl needed)', () => {
  it('should all be valid against the Kubernetes schemas', () => {
    for (const dir of OVERLAYS.map((o) => join(k8s, 'overlays', o))) {
      const sources = sourceManifests(dir);
      expect(sources.length).toBeGreaterThan(30);
      expect(sources.flatMap((s) => schemaProblems(s.manifest))).toEqual([]);
    }
  });
});

const kustomizeVersion = await kubectlKustomizeVersion();

describe.skipIf(!kustomizeVersion)(`Each overlay rendered by kubectl kustomize (${kustomizeVersion ?? 'no kubectl'})`, () => {
  const rendered = new Map<string, Manifest[]>();
  beforeAll(async () => {
    for (const o of OVERLAYS) rendered.set(o, await kustomize(join(k8s, 'overlays', o)));
  });
  const each = (fn: (manifests: Manifest[], overlay: string) => void) => () => {
    for (const o of OVERLAYS) fn(rendered.get(o)!, o);
  };

  it('should validate every manifest against the Kubernetes schemas', each((manifests) => {
    expect(manifests.length).toBeGreaterThan(30);
    expect(manifests.flatMap(schemaProblems)).toEqual([]);
  }));

  it('should have every reference resolve (selectors, targets, ConfigMaps, Secrets, ports, volumes)', each((manifests) => {
    expect(referenceProblems(manifests, EXTERNAL)).toEqual([]);
  }));

  it('should set only variables the services read', each((manifests) => {
    expect(unreadVariables(manifests, reads)).toEqual([]);
  }));

  it('should put everything in one namespace', each((manifests) => {
    const namespaced = manifests.filter((m) => m.kind !== 'Namespace');
    expect(new Set(namespaced.map((m) => m.metadata?.namespace))).toEqual(new Set(['render-service']));
  }));

  it('should probe each service on /healthz and /readyz at the operations port it listens on, on every address', each((manifests) => {
    const config = find(manifests, 'ConfigMap', 'render-service-config')!;
    expect(config.data?.['HEALTH_HOST']).toBe('0.0.0.0');
    for (const [service, portVariable] of Object.entries(SERVICES)) {
      const c = containerOf(manifests, 'Deployment', service);
      const port = Number(c.env?.find((e) => e.name === portVariable)?.value);
      const ops = c.ports?.find((p) => p.containerPort === port);
      expect(ops?.name, service).toBeDefined();
      expect(c.livenessProbe?.httpGet, service).toEqual({ path: '/healthz', port: ops!.name });
      expect(c.readinessProbe?.httpGet, service).toEqual({ path: '/readyz', port: ops!.name });
      expect(c.args, service).toContain(`services/${service}/dist/main.js`);
    }
  }));

  it('should give every container requests and limits, and the renderer a memory-backed /dev/shm', each((manifests) => {
    for (const m of manifests) {
      for (const c of podTemplateOf(m)?.spec.containers ?? []) {
        expect(Object.keys(c.resources?.requests ?? {}).sort(), `${m.metadata?.name}`).toEqual(['cpu', 'memory']);
        expect(Object.keys(c.resources?.limits ?? {}).sort(), `${m.metadata?.name}`).toEqual(['cpu', 'memory']);
      }
    }
    const renderer = podTemplateOf(find(manifests, 'Deployment', 'renderer')!)!;
    const shm = renderer.spec.containers[0]!.volumeMounts?.find((v) => v.mountPath === '/dev/shm');
    expect(renderer.spec.volumes?.find((v) => v.name === shm?.name)?.emptyDir?.medium).toBe('Memory');
  }));

  it('should give every workload but the one-off Job a disruption budget', each((manifests) => {
    const budgets = manifests.filter((m) => m.kind === 'PodDisruptionBudget');
    for (const w of manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet')) {
      const labels = podTemplateOf(w)?.metadata?.labels ?? {};
      const budget = budgets.find((b) => Object.entries((b.spec?.['selector'] as { matchLabels: Record<string, string> }).matchLabels).every(([k, v]) => labels[k] === v));
      expect(budget, w.metadata?.name).toBeDefined();
    }
  }));

  it('should let renderers send only to NATS, the cluster DNS and public addresses', each((manifests) => {
    const policy = find(manifests, 'NetworkPolicy', 'renderer')!;
    expect(policy.spec?.['policyTypes']).toContain('Egress');
    type Peer = { ipBlock?: { cidr: string; except?: string[] }; podSelector?: { matchLabels?: Record<string, string> } };
    const egress = policy.spec?.['egress'] as { to: Peer[]; ports?: { port: number }[] }[];
    const blocks = egress.flatMap((r) => r.to.flatMap((p) => (p.ipBlock ? [p.ipBlock] : [])));
    for (const b of blocks) {
      if (b.cidr === '0.0.0.0/0') expect(b.except).toEqual(expect.arrayContaining(['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '127.0.0.0/8', '100.64.0.0/10']));
      else if (b.cidr === '::/0') expect(b.except).toEqual(expect.arrayContaining(['fc00::/7', 'fe80::/10', '::1/128']));
      else throw new Error(`renderer egress to ${b.cidr}`);
    }
    const pods = egress.flatMap((r) => r.to.flatMap((p) => (p.podSelector && !p.ipBlock ? [{ labels: p.podSelector.matchLabels, ports: r.ports }] : [])));
    expect(pods).toEqual([
      { labels: { 'app.kubernetes.io/name': 'nats' }, ports: [{ protocol: 'TCP', port: 4222 }] },
      { labels: { 'k8s-app': 'kube-dns' }, ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] },
    ]);
  }));

  it('should run NATS as three JetStream nodes that every client lists, with three replicas of every stream', each((manifests) => {
    const nats = find(manifests, 'StatefulSet', 'nats')!;
    expect(nats.spec?.['replicas']).toBe(3);
    const conf = find(manifests, 'ConfigMap', 'nats-config')!.data!['nats.conf']!;
    expect(conf).toMatch(/jetstream \{/);
    for (const i of [0, 1, 2]) expect(conf).toContain(`nats://nats-${i}.nats-headless:6222`);
    const config = find(manifests, 'ConfigMap', 'render-service-config')!.data!;
    expect(config['NATS_URL']!.split(',')).toEqual([0, 1, 2].map((i) => `nats://nats-${i}.nats-headless:4222`));
    expect(config['NATS_REPLICAS']).toBe('3');
    expect(find(manifests, 'StatefulSet', 'mongo')?.spec?.['replicas']).toBe(3);
  }));

  it('should scale the renderer on CPU, or on the pending jobs of the render queue through KEDA', () => {
    const hpa = find(rendered.get('cpu-autoscaling')!, 'HorizontalPodAutoscaler', 'renderer')!;
    expect((hpa.spec?.['metrics'] as { resource: { name: string } }[])[0]!.resource.name).toBe('cpu');
    const keda = rendered.get('keda')!;
    expect(find(keda, 'HorizontalPodAutoscaler', 'renderer')).toBeUndefined();
    const scaled = find(keda, 'ScaledObject', 'renderer')!;
    const trigger = (scaled.spec?.['triggers'] as { type: string; metadata: Record<string, string> }[]).find((t) => t.type === 'nats-jetstream')!;
    expect(trigger.metadata['stream']).toBe(STREAMS.RENDER_JOBS.name);
    expect(trigger.metadata['consumer']).toBe(RENDERER_JOBS_CONSUMER.config.durable_name);
    expect(trigger.metadata['natsServerMonitoringEndpoint']).toBe('nats.render-service.svc.cluster.local:8222');
  });
});

describe('A broken manifest', () => {
  const deployment = (container: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'broken' },
    spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i', ...container }] } }, ...spec },
  });

  it('should pass when it is right (the checks below fail on the fault alone)', () => {
    expect(schemaProblems(deployment({ ports: [{ containerPort: 80 }] }))).toEqual([]);
  });

  it('should fail the schema on a wrong type, naming the object and the field', () => {
    const problems = schemaProblems(deployment({ ports: [{ containerPort: 'https' }] }));
    expect(problems.join()).toMatch(/Deployment broken: .*containerPort must be integer/);
  });

  it('should fail the schema on a missing required field', () => {
    expect(schemaProblems({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'broken' }, spec: { template: {} } }).join()).toMatch(/selector/);
  });

  it('should fail on a kind or version that has no schema', () => {
    expect(schemaProblems({ apiVersion: 'apps/v1beta1', kind: 'Deployment', metadata: { name: 'old' } })).toEqual([
      'Deployment old: no schema for apiVersion "apps/v1beta1" kind "Deployment"',
    ]);
  });

  it('should fail the references when a selector, a probe port or a Secret points at nothing', () => {
    const d = deployment({ livenessProbe: { httpGet: { path: '/healthz', port: 'ops' } }, envFrom: [{ secretRef: { name: 'nope' } }] });
    const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lonely' }, spec: { selector: { a: 'z' } } };
    expect(referenceProblems([d, service] as Manifest[], EXTERNAL)).toEqual([
      'Deployment broken container c: livenessProbe uses an unnamed port ops',
      'Deployment broken container c: envFrom a missing Secret nope',
      'Service lonely: selects no pod',
    ]);
  });

  it('should fail on a misspelt variable', () => {
    const d = deployment({ args: ['node', 'services/renderer/dist/main.js'], env: [{ name: 'RENDERER_CONCURENCY', value: '4' }] }, {});
    (d.metadata as { name: string }).name = 'renderer';
    (d.spec.template.spec.containers[0] as { name: string }).name = 'renderer';
    expect(unreadVariables([d] as Manifest[], reads)).toEqual(['Deployment renderer: RENDERER_CONCURENCY is read by neither renderer nor a library']);
  });

  describe.skipIf(!kustomizeVersion)('rendered by kubectl kustomize', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'kustomize-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('should fail validation after rendering', async () => {
      writeFileSync(join(dir, 'kustomization.yaml'), 'resources: [deployment.yaml]\nnamespace: x\n');
      writeFileSync(join(dir, 'deployment.yaml'), JSON.stringify(deployment({ resources: { limits: { cpu: ['2'] } } })));
      const manifests = await kustomize(dir);
      expect(manifests[0]?.metadata?.namespace).toBe('x');
      expect(manifests.flatMap(schemaProblems).join()).toMatch(/Deployment broken: .*limits/);
    });

    it('should fail to render a kustomization naming a missing file', async () => {
      writeFileSync(join(dir, 'kustomization.yaml'), 'resources: [missing.yaml]\n');
      await expect(kustomize(dir)).rejects.toThrow(/kubectl kustomize .* failed: .*missing\.yaml/);
    });
  });
});
