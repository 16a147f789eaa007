import type { Row } from '../report.js';
import { round } from '../stats.js';
import { httpLoad, mergeRuns, type HttpLoadResult } from './http-load.js';

// (3) and (4): the edge's run interleaved with the floor's under the same requests, in slices.
//
// Each slice is a wrk run of its own, which opens its 32 connections anew: 32 TLS handshakes (about 2.3 ms
// of the server's CPU each on a 2-core machine) while the first requests wait. Two slices a side keep
// that burst to twice in each side's 10 s (a single 10 s run has it once); five 2 s slices a side put it
// five times into a keep-alive hit's p99. wrk takes whole seconds. Each server first gets unmeasured load
// (compiled code and a busy key's rate lease are steady by then).

const loadOptions = (port: number, accessKey: string, body: Record<string, unknown>, path: string, seconds: number) => ({
  url: `https://127.0.0.1:${port}${path}`,
  method: 'POST' as const,
  headers: { 'content-type': 'application/json', 'x-access-key': accessKey },
  body: JSON.stringify(body),
  connections: 32,
  seconds,
});

/** A load's figures without its latency distribution (which only merging needs). */
const figures = ({ latencyUs: _, ...rest }: HttpLoadResult) => rest;

/**
 * Scenario `id` interleaved with the floor's run under the same requests (and, when given, with the run of
 * a floor that coalesces its writes as the edge does), all warmed first; a row each for requests/s and p99.
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
  const LOAD_SECONDS = opts.quick ? 4 : 10;
  const SLICE_SECONDS = opts.quick ? 2 : 5;
  const WARMUP_SECONDS = opts.quick ? 2 : 3;
  const rows: Row[] = [];
  log(`${label} (interleaved with the floor's run${coalescedFloor ? ` and the coalescing floor's` : ''}${uncoalesced ? ", and the edge's without coalesced writes" : ''})`);
  const servers = [
    { port: floor.port, path: '/', runs: [] as HttpLoadResult[] },
    ...(coalescedFloor ? [{ port: coalescedFloor.port, path: '/', runs: [] as HttpLoadResult[] }] : []),
    ...(uncoalesced ? [{ port: uncoalesced.port, path: '/v1/screenshot', runs: [] as HttpLoadResult[] }] : []),
    { port: opts.ours.port, path: '/v1/screenshot', runs: [] as HttpLoadResult[] },
  ];
  for (const s of servers) await httpLoad(loadOptions(s.port, accessKey, body, s.path, WARMUP_SECONDS));
  const slices = servers.map((s) => async () => void s.runs.push(await httpLoad(loadOptions(s.port, accessKey, body, s.path, SLICE_SECONDS))));
  // floor, (coalescing floor,) ours | ours, (coalescing floor,) floor | ...
  for (let i = 0; i < LOAD_SECONDS / SLICE_SECONDS; i++) for (const slice of i % 2 === 0 ? slices : [...slices].reverse()) await slice();
  const [base, ...rest] = servers.map((s) => mergeRuns(s.runs));
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
    ours: figures(ours),
    floor: figures(base!),
    ...(coalesced ? { coalescedFloor: figures(coalesced) } : {}),
    ...(notCoalesced ? { uncoalesced: figures(notCoalesced) } : {}),
  };
}
