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

/** A page answering one of these is a failed run, never compared (decisions: Monitoring people can rely on). */
export const DEFAULT_FAIL_ON_STATUS = ['400-599'];
export const DEFAULT_ALERT_AFTER_FAILURES = 3;
export const MAX_NOTIFY = 10;
export const MAX_KEYWORDS = 20;
export const DEFAULT_KEEP = 50;
export const MAX_KEEP = 1_000;

export const CHAT_TYPES = ['slack', 'discord', 'teams'] as const;
export type ChatType = (typeof CHAT_TYPES)[number];
/** Where a monitor's announcements also go: a chat service's incoming webhook, or an email address. */
export type NotifyChannel = { type: ChatType; url: string } | { type: 'email'; to: string };

/** text mode: which changed lines count (`added`: only new lines, `removed`: only lines gone). */
export const TRIGGERS = ['any', 'added', 'removed'] as const;
export type Trigger = (typeof TRIGGERS)[number];

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
  /** Statuses and ranges that fail a run (absent: DEFAULT_FAIL_ON_STATUS; [] fails none). */
  failOnStatus?: string[];
  failIfContentContains?: string[];
  failIfContentMissing?: string[];
  /** Failed runs in a row before the task announces task.failing (absent: the default; 0: never). */
  alertAfterFailures?: number;
  notify?: NotifyChannel[];
  /** text mode (absent: any). */
  trigger?: Trigger;
  /** text mode: a change counts only when one of these appears or disappears. */
  keywords?: string[];
  /** Runs whose compared results are kept (absent: DEFAULT_KEEP). */
  keep?: number;
}

/** The monitor's settings with their defaults filled (a monitor recorded before they existed has none). */
export const failOnStatusOf = (m: Monitor): string[] => m.failOnStatus ?? DEFAULT_FAIL_ON_STATUS;
export const alertAfterFailuresOf = (m: Monitor): number => m.alertAfterFailures ?? DEFAULT_ALERT_AFTER_FAILURES;
export const keepOf = (m: Monitor): number => m.keep ?? DEFAULT_KEEP;

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
