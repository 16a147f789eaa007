import type { Comparison, Monitor } from '../domain/monitor/monitor.js';
import { compareResults, comparedResult, type ComparedResult } from './compare-results.js';
import { isEmptyText } from './empty-page.js';
import { compareDecodedImages, decodeImage, isOneColour, type DecodedImage } from './visual-diff.js';

/** One comparison of a monitoring run, as a worker thread takes it (plain data: it is copied to the thread). */
export interface CompareJob {
  monitor: Monitor;
  /** The run's result as rendered. */
  result: { body: Uint8Array; extension: string; contentType: string };
  /** The baseline's compared file; without it the run is the baseline (only its compared form is made). */
  previous?: Uint8Array;
  labels: { before: string; after: string };
}

export interface CompareJobResult {
  /** The run's compared form (text mode: the extracted, filtered text); visual mode compares the result itself. */
  compared?: ComparedResult;
  comparison?: Comparison;
  /** The page showed nothing (no text, or one colour): not compared, the run is failed. */
  empty?: true;
}

/** The CPU-bound part of a comparison: text extraction and ignore_text, then the text or visual diff. */
export async function runCompareJob(job: CompareJob): Promise<CompareJobResult> {
  if (job.monitor.mode === 'visual') return compareScreenshot(job);
  const compared = comparedResult(job.monitor, job.result.body, job.result);
  if (isEmptyText(compared.body)) return { empty: true };
  const comparison = job.previous ? await compareResults(job.monitor, job.previous, compared.body, job.labels) : undefined;
  return { compared, ...(comparison ? { comparison } : {}) };
}

/**
 * Visual mode: the screenshot is decoded once, for the blank-page check and the diff (decoding is most of
 * a comparison's cost). A baseline that is no image sharp reads is kept as it is; compared, it fails.
 */
async function compareScreenshot(job: CompareJob): Promise<CompareJobResult> {
  let after: DecodedImage;
  try {
    after = await decodeImage(job.result.body);
  } catch (err) {
    if (job.previous) throw err;
    return {};
  }
  if (isOneColour(after)) return { empty: true };
  if (!job.previous) return {};
  return { comparison: await compareDecodedImages(await decodeImage(job.previous), after) };
}

/**
 * Two kept runs compared with each other (GET /v1/tasks/{id}/compare): both files are compared forms
 * already (the screenshot as compared, the extracted text), so only the diff is made.
 */
export interface PairJob {
  monitor: Monitor;
  before: Uint8Array;
  after: Uint8Array;
  labels: { before: string; after: string };
}

export const runComparePair = (job: PairJob): Promise<Comparison> => compareResults(job.monitor, job.before, job.after, job.labels);

/** Why a comparison gave no result: it ran out of time, its worker thread died, or it threw. */
export type ComparisonFailure = 'deadline' | 'crashed' | 'error';

export class ComparisonFailed extends Error {
  constructor(
    readonly reason: ComparisonFailure,
    options?: ErrorOptions,
  ) {
    super(`comparison failed: ${reason}`, options);
    this.name = 'ComparisonFailed';
  }
}
