import { startTestStack, type TestStack } from '@app/testkit';
import { serviceClient, type ServiceClient } from '../client.js';
import type { Row } from '../report.js';
import { median, round, timed } from '../stats.js';
import { httpLoad, mergeRuns, type HttpLoadResult } from './http-load.js';

interface Side {
  label: string;
  stack: TestStack;
  client: ServiceClient;
  renders: number[];
  loads: HttpLoadResult[];
}

export interface NatsClusterResult {
  single: { renderP50Ms: number; cacheHitsPerSecond: number; cacheHitP99Ms: number };
  cluster: { renderP50Ms: number; cacheHitsPerSecond: number; cacheHitP99Ms: number };
}

/**
 * (10) The same stack on one NATS server and on a three-node JetStream cluster (every stream and bucket in
 * three copies), both running at once and measured in turns (one, cluster, cluster, one...) so drift on a
 * shared machine weighs on both alike: a screenshot's p50, one at a time, and cache hits a second under 32
 * connections.
 */
export async function natsClusterScenario(opts: {
  url: string;
  env: NodeJS.ProcessEnv;
  renders: number;
  loadSeconds: number;
  sliceSeconds: number;
  log: (line: string) => void;
}): Promise<{ result: NatsClusterResult; rows: Row[] }> {
  const sides: Side[] = [];
  try {
    for (const [label, natsClusterSize] of [
      ['one NATS server', 1],
      ['three-node NATS cluster, 3 replicas', 3],
    ] as const) {
      opts.log(`nats cluster: starting a stack on ${label}`);
      const stack = await startTestStack({ renderers: 1, natsClusterSize, env: opts.env });
      const client = serviceClient({ baseUrl: `https://127.0.0.1:${stack.port}`, ca: stack.certPem, accessKey: stack.demo.accessKey });
      sides.push({ label, stack, client, renders: [], loads: [] });
    }
    const render = { url: opts.url, block_annoyance: 'none' };
    const cached = { url: opts.url, cache: true, cache_ttl: 3600 };
    for (const side of sides) {
      for (let i = 0; i < 3; i++) await side.client.render('screenshot', render);
      await side.client.render('screenshot', cached);
      const check = await side.client.call('/v1/screenshot', cached);
      if (check.headers['x-service-cache'] !== 'HIT') throw new Error(`the cache did not answer on the ${side.label} (${check.status})`);
    }
    opts.log('nats cluster: renders one at a time, in turns');
    for (let i = 0; i < opts.renders; i++) for (const side of i % 2 === 0 ? sides : [...sides].reverse()) side.renders.push(await timed(() => side.client.render('screenshot', render)));
    opts.log('nats cluster: cache hits, in turns');
    const load = (side: Side, seconds: number) =>
      httpLoad({
        url: `https://127.0.0.1:${side.stack.port}/v1/screenshot`,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-access-key': side.stack.demo.accessKey },
        body: JSON.stringify(cached),
        connections: 32,
        seconds,
      });
    for (const side of sides) await load(side, opts.sliceSeconds);
    for (let i = 0; i < opts.loadSeconds / opts.sliceSeconds; i++) {
      for (const side of i % 2 === 0 ? sides : [...sides].reverse()) side.loads.push(await load(side, opts.sliceSeconds));
    }
    const [single, cluster] = sides.map((side) => {
      const hits = mergeRuns(side.loads);
      return { renderP50Ms: median(side.renders), cacheHitsPerSecond: hits.requestsPerSecond, cacheHitP99Ms: hits.p99Ms };
    }) as [NatsClusterResult['single'], NatsClusterResult['cluster']];
    const rows: Row[] = [];
    for (const [side, figures] of [
      [sides[0]!, single],
      [sides[1]!, cluster],
    ] as const) {
      rows.push({ scenario: `(10) screenshot, one at a time, ${side.label}`, metric: 'p50 ms', ours: round(figures.renderP50Ms) });
      rows.push({ scenario: `(10) cache hits over HTTPS, ${side.label}`, metric: 'requests/s', ours: round(figures.cacheHitsPerSecond, 0) });
    }
    return { result: { single, cluster }, rows };
  } finally {
    for (const side of sides) {
      side.client.close();
      await side.stack.stop();
    }
  }
}
