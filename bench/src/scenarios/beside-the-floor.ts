import type { Row } from '../report.js';
import { median, round } from '../stats.js';
import { httpLoad, type HttpLoadResult } from './http-load.js';

// (3) and (4): the edge's runs alternating with the floor's under the same requests, three runs a side.
//
// Each run is a wrk run of its own, which opens its 32 connections anew: 32 TLS handshakes (about 2.3 ms
// of the server's CPU each on a 2-core machine) while the first requests wait. A 10 s run has that burst
// once, a small part of a keep-alive hit's p99. Each server first gets unmeasured load (compiled code and
// a busy key's rate lease are steady by then). A side's figure is the median of its three runs, so one
// run the machine slowed (a neighbour on the host, a collection at the wrong moment) cannot decide it.

const loadOptions = (port: number, accessKey: string, body: Record<string, unknown>, path: string, seconds: number) => ({
  url: `https://127.0.0.1:${port}${path}`,
  method: 'POST' as const,
  headers: { 'content-type': 'application/json', 'x-access-key': accessKey },
  body: JSON.stringify(body),
  connections: 32,
  seconds,
});

/** A load's figures without its latency distribution. */
type Figures = Omit<HttpLoadResult, 'latencyUs'>;
const figuresOf = ({ latencyUs: _, ...rest }: HttpLoadResult): Figures => rest;

/** One side's runs: each run's figures, and the median of their requests/s and of their p99s. */
export interface SideFigures {
  requestsPerSecond: number;
  p99Ms: number;
  p50Ms: number;
  runs: Figures[];
}

export function medianOfRuns(runs: HttpLoadResult[]): SideFigures {
  if (runs.length === 0) throw new Error('no runs');
  return {
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    runs: runs.map(figuresOf),
  };
}

/**
 * Scenario `id` in runs alternating with the floor's under the same requests (and, when given, with the runs
 * of a floor that coalesces its writes as the edge does, and of the edge without coalesced writes), all
 * warmed first: three rounds, each a run of every server, in the order floor … ours, then ours … floor,
 * then floor … ours again. A row each for requests/s and p99, each the median of a side's three runs.
 */
export async function besideFloorScenario(opts: {
  /** The edge measured. */
  ours: { port: number };
  floor: { port: number };
  id: number;
  label: string;
  accessKey: string;
  body: Record<string, unknown>;
  coalescedFloor?: { port: number } | undefined;
  /** The same requests to the edge whose writes are not coalesced (EDGE_COALESCE_WRITES=0). */
  uncoalesced?: { port: number } | undefined;
  quick: boolean;
  log: (message: string) => void;
}) {
  const { floor, id, label, accessKey, body, coalescedFloor, uncoalesced, log } = opts;
  const RUN_SECONDS = opts.quick ? 2 : 10;
  const ROUNDS = 3;
  const WARMUP_SECONDS = opts.quick ? 2 : 3;
  const rows: Row[] = [];
  log(`${label} (${ROUNDS} runs a side alternating with the floor's${coalescedFloor ? ` and the coalescing floor's` : ''}${uncoalesced ? ", and the edge's without coalesced writes" : ''})`);
  const servers = [
    { port: floor.port, path: '/', runs: [] as HttpLoadResult[] },
    ...(coalescedFloor ? [{ port: coalescedFloor.port, path: '/', runs: [] as HttpLoadResult[] }] : []),
    ...(uncoalesced ? [{ port: uncoalesced.port, path: '/v1/screenshot', runs: [] as HttpLoadResult[] }] : []),
    { port: opts.ours.port, path: '/v1/screenshot', runs: [] as HttpLoadResult[] },
  ];
  for (const s of servers) await httpLoad(loadOptions(s.port, accessKey, body, s.path, WARMUP_SECONDS));
  const runs = servers.map((s) => async () => void s.runs.push(await httpLoad(loadOptions(s.port, accessKey, body, s.path, RUN_SECONDS))));
  // floor, (coalescing floor, uncoalesced,) ours | ours, (uncoalesced, coalescing floor,) floor | floor, ...
  for (let i = 0; i < ROUNDS; i++) for (const run of i % 2 === 0 ? runs : [...runs].reverse()) await run();
  const [base, ...rest] = servers.map((s) => medianOfRuns(s.runs));
  const ours = rest.pop()!;
  const notCoalesced = uncoalesced ? rest.pop() : undefined;
  const coalesced = rest[0];
  rows.push({ scenario: `(${id}) ${label}`, metric: 'requests/s', ours: round(ours.requestsPerSecond, 0), floor: round(base!.requestsPerSecond, 0) });
  rows.push({ scenario: `(${id}) ${label}`, metric: 'p99 ms', ours: round(ours.p99Ms, 2), floor: round(base!.p99Ms, 2) });
  if (notCoalesced) {
    const scenario = `(${id}) ${label}, EDGE_COALESCE_WRITES=0`;
    rows.push({ scenario, metric: 'requests/s', ours: round(notCoalesced.requestsPerSecond, 0), floor: round(base!.requestsPerSecond, 0) });
    rows.push({ scenario, metric: 'p99 ms', ours: round(notCoalesced.p99Ms, 2), floor: round(base!.p99Ms, 2) });
  }
  return {
    rows,
    ours,
    floor: base!,
    ...(coalesced ? { coalescedFloor: coalesced } : {}),
    ...(notCoalesced ? { uncoalesced: notCoalesced } : {}),
  };
}
