import { afterAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { AppError } from '@app/errors';
import { workerComparer } from './adapters/worker-comparer.js';
import type { Monitor, RunChange } from './domain/monitor/monitor.js';
import type { RunView, TaskView } from './projections/task-views/task-views.js';
import { compareKeptRuns, pairDiffName } from './application/compare-kept-runs.js';
import { comparedTtlMs } from './application/compare-run.js';
import type { ResultStore, StoredResult } from './application/ports.js';

// Two kept runs of a monitoring task compared in the scheduler's comparison threads (the built worker: run
// `npx turbo run build --filter=@app/scheduler` first), their files read from and the diff written to a
// results store held in memory.

const NOW = Date.UTC(2026, 10, 28, 12);
const monitor = (keep?: number): Monitor => ({ mode: 'text', threshold: 1, ignoreSelectors: [], ignoreText: [], confirm: false, ...(keep ? { keep } : {}) });
const text = (s: string): StoredResult => ({ body: new TextEncoder().encode(s), extension: 'txt', contentType: 'text/plain; charset=utf-8' });

function memoryResults(files: Record<string, StoredResult>) {
  const written = new Map<string, StoredResult & { accountId: string; ttlMs: number }>();
  const store: ResultStore = {
    read: async (name) => written.get(name) ?? files[name],
    write: async (name, body, meta) => void written.set(name, { body, ...meta }),
  };
  return { store, written };
}

const run = (n: number, change: Pick<RunChange, 'status'> & { after?: string }): RunView => ({
  runId: `7-${1_000 + n}`,
  taskId: 7,
  trigger: 'schedule',
  dueAt: NOW,
  startedAt: NOW,
  finishedAt: NOW,
  status: change.status === 'failed' ? 'failed' : 'succeeded',
  file: `result-${n}`,
  error: null,
  change: { score: 0, summary: '', boxes: [], after: change.after ?? `compared-${n}`, comparedAt: NOW, ...change },
});

/** The task's views: `runs` oldest first as given (the views answer newest first). */
function viewsOf(m: Monitor | null, runs: RunView[]) {
  const task = { id: 7, accountId: 'acc-1', monitor: m } as TaskView;
  return {
    catchUp: async () => undefined,
    get: (accountId: string, id: number) => (accountId === 'acc-1' && id === 7 ? task : undefined),
    runs: (accountId: string, id: number) => (accountId === 'acc-1' && id === 7 ? [...runs].reverse() : undefined),
  };
}

const failureOf = async (p: Promise<unknown>): Promise<AppError> => {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('the comparison succeeded');
};

describe('Comparing two kept runs', () => {
  const comparer = workerComparer({ threads: 1, deadlineMs: 20_000 });
  afterAll(() => comparer.close());
  const clock = { now: () => new Date(NOW) };
  const pricesA = text('Plans\nBasic $9\nPro $29\n');
  const pricesB = text('Plans\nBasic $9\nPro $39\n');
  const runs = [run(1, { status: 'baseline' }), run(2, { status: 'changed' }), run(3, { status: 'changed' }), run(4, { status: 'failed', after: 'result-4' })];
  const files = { 'compared-1': pricesA, 'compared-2': pricesB, 'compared-3': pricesA, 'result-4': text('') };

  it('should find the same page unchanged, with no diff file', async () => {
    // Given runs A, B, A
    const { store, written } = memoryResults(files);
    const compare = compareKeptRuns({ views: viewsOf(monitor(), runs), results: store, comparer, clock });
    // When the first and the third are compared
    const change = await compare('acc-1', 7, '7-1001', '7-1003');
    // Then nothing changed
    expect(change).toMatchObject({ status: 'unchanged', score: 0, before: 'compared-1', after: 'compared-3', comparedAt: NOW });
    expect(change.diff).toBeUndefined();
    expect(written.size).toBe(0);
  });

  it('should find a change between any two kept runs and write its diff as the account\'s file', async () => {
    const { store, written } = memoryResults(files);
    const compare = compareKeptRuns({ views: viewsOf(monitor(), runs), results: store, comparer, clock });
    // When the first and the second are compared
    const change = await compare('acc-1', 7, '7-1001', '7-1002');
    // Then the price change is found, its unified diff written (named for the pair, kept like a result)
    expect(change).toMatchObject({ status: 'changed', before: 'compared-1', after: 'compared-2', diff: pairDiffName('compared-1', 'compared-2') });
    expect(change.score).toBeGreaterThanOrEqual(1);
    const diff = written.get(change.diff!)!;
    expect(diff).toMatchObject({ accountId: 'acc-1', extension: 'diff', ttlMs: 24 * 3_600_000 });
    const lines = new TextDecoder().decode(diff.body).split('\n');
    expect(lines).toContain('-Pro $29');
    expect(lines).toContain('+Pro $39');
    // And the other way round, the lines swap sides
    const back = await compare('acc-1', 7, '7-1002', '7-1001');
    expect(new TextDecoder().decode(written.get(back.diff!)!.body).split('\n')).toContain('+Pro $29');
  });

  it('should answer run_not_found naming the parameter for a run that is not kept', async () => {
    const { store } = memoryResults(files);
    // Given a monitor that keeps 2 runs (of 3 compared ones and a failed one)
    const compare = compareKeptRuns({ views: viewsOf(monitor(2), runs), results: store, comparer, clock });
    // Then the oldest compared run, a failed run and an unknown run are not kept
    const oldest = await failureOf(compare('acc-1', 7, '7-1001', '7-1003'));
    expect(oldest.code).toBe('run_not_found');
    expect(oldest.details).toEqual([expect.objectContaining({ parameter: 'from' })]);
    const failed = await failureOf(compare('acc-1', 7, '7-1002', '7-1004'));
    expect(failed.details).toEqual([expect.objectContaining({ parameter: 'to' })]);
    expect((await failureOf(compare('acc-1', 7, '7-1002', '7-9999'))).code).toBe('run_not_found');
    // While the two newest compared runs are
    expect((await compare('acc-1', 7, '7-1002', '7-1003')).status).toBe('changed');
  });

  it('should answer run_not_found when a kept run\'s file expired, and task_not_found for another account', async () => {
    const { store } = memoryResults({ 'compared-1': pricesA, 'compared-3': pricesA });
    const compare = compareKeptRuns({ views: viewsOf(monitor(), runs), results: store, comparer, clock });
    const expired = await failureOf(compare('acc-1', 7, '7-1002', '7-1003'));
    expect(expired.code).toBe('run_not_found');
    expect(expired.details).toEqual([expect.objectContaining({ parameter: 'from' })]);
    expect((await failureOf(compare('acc-2', 7, '7-1001', '7-1003'))).code).toBe('task_not_found');
  });

  it('should compare two kept screenshots of a visual monitor, the diff a PNG of their size', async () => {
    const png = async (colour: string): Promise<StoredResult> => ({
      body: new Uint8Array(await sharp({ create: { width: 40, height: 30, channels: 3, background: colour } }).png().toBuffer()),
      extension: 'png',
      contentType: 'image/png',
    });
    const { store, written } = memoryResults({ 'compared-1': await png('#ffffff'), 'compared-2': await png('#ff0000'), 'compared-3': await png('#ffffff') });
    const visual: Monitor = { ...monitor(), mode: 'visual', threshold: 0.1 };
    const compare = compareKeptRuns({ views: viewsOf(visual, runs), results: store, comparer, clock });
    expect(await compare('acc-1', 7, '7-1001', '7-1003')).toMatchObject({ status: 'unchanged', score: 0 });
    const change = await compare('acc-1', 7, '7-1001', '7-1002');
    expect(change).toMatchObject({ status: 'changed', score: 100 });
    const diff = written.get(change.diff!)!;
    expect(diff.extension).toBe('png');
    expect(await sharp(diff.body).metadata()).toMatchObject({ width: 40, height: 30 });
  });

  it('should keep compared files for the monitor\'s keep runs (and at least a day)', () => {
    const HOUR = 3_600_000;
    expect(comparedTtlMs('every_minute', 50)).toBe(24 * HOUR);
    expect(comparedTtlMs('every_hour', 50)).toBe(51 * HOUR);
    expect(comparedTtlMs('every_hour', 1_000)).toBe(1_001 * HOUR);
    expect(comparedTtlMs('every_day')).toBe(51 * 24 * HOUR);
  });
});
