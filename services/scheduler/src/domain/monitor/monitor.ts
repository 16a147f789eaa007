/**
 * Change monitoring: what a monitoring task compares on each run, and what a comparison found
 * (decisions: Change monitoring). Pure types and defaults.
 */

export const MONITOR_MODES = ['visual', 'text'] as const;
export type MonitorMode = (typeof MONITOR_MODES)[number];

/** The operation each mode watches. */
export const MODE_API: Record<MonitorMode, 'screenshot' | 'scrape'> = { visual: 'screenshot', text: 'scrape' };

/** visual: percent of pixels that differ; text: changed characters. */
export const DEFAULT_THRESHOLD: Record<MonitorMode, number> = { visual: 0.1, text: 1 };
export const MAX_IGNORE_TEXT = 20;
export const MAX_IGNORE_SELECTORS = 20;

export interface Monitor {
  mode: MonitorMode;
  threshold: number;
  /** Compare only this element. */
  selector?: string;
  /** Elements masked (visual) or removed (text) before comparing. */
  ignoreSelectors: string[];
  /** Regular expressions whose matches are removed before a text comparison. */
  ignoreText: string[];
  /** A suspected change is rendered once more before it counts. */
  confirm: boolean;
}

/** `failed`: the comparison kept failing (out of time or memory); the run is not compared, the baseline stays. */
export type ChangeStatus = 'baseline' | 'unchanged' | 'changed' | 'failed';

/** A changed region, in pixels of the compared image. */
export interface ChangeBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What comparing one result with the previous one found (before the threshold is applied). */
export interface Comparison {
  score: number;
  summary: string;
  /** The diff file's bytes (a PNG, or a unified diff), when something differs. */
  diff?: { body: Uint8Array; extension: 'png' | 'diff'; contentType: string };
  boxes: ChangeBox[];
}

/** The run's change, as recorded: the files are object names in the results store. */
export interface RunChange {
  status: ChangeStatus;
  score: number;
  summary: string;
  /** The compared result of this run (the screenshot as compared, or the extracted text). */
  after: string;
  before?: string;
  diff?: string;
  boxes: ChangeBox[];
}

/** Whether a comparison's score is a change under the monitor's threshold. */
export const exceeds = (monitor: Pick<Monitor, 'threshold'>, score: number): boolean => score > 0 && score >= monitor.threshold;

/** Monitors are compared by value (an update that sends the same monitor changes nothing). */
export const sameMonitor = (a: Monitor | null | undefined, b: Monitor | null | undefined): boolean =>
  JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
