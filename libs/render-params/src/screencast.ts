import { boolParam, enumParam, numberParam } from './coerce.js';
import type { Operation } from './parameters.js';
import { timeoutSecondsOf } from './defaults.js';

export const SCREENCAST_FORMATS = ['webm', 'mp4', 'mov', 'avi'] as const;
export type ScreencastFormat = (typeof SCREENCAST_FORMATS)[number];
export const SCREENCAST_SCENARIOS = ['video', 'scroll'] as const;

/** `linear`, or ease_in / ease_out / ease_in_out with the power of the curve (quad 2 … quint 5). */
export const SCROLL_EASINGS = [
  'linear',
  'ease_in_quad',
  'ease_out_quad',
  'ease_in_out_quad',
  'ease_in_cubic',
  'ease_out_cubic',
  'ease_in_out_cubic',
  'ease_in_quart',
  'ease_out_quart',
  'ease_in_out_quart',
  'ease_in_quint',
  'ease_out_quint',
  'ease_in_out_quint',
] as const;
export type ScrollEasing = (typeof SCROLL_EASINGS)[number];

/** Longest recording, in seconds. */
export const MAX_SCREENCAST_SECONDS = 30;
/**
 * Seconds a screencast may take after its recording ends (the encoder writing out the file), on top of
 * `timeout` (loading and preparing the page) and `duration` (the recording).
 */
export const SCREENCAST_FINISH_SECONDS = 10;

const SCREENCAST: Operation[] = ['screencast'];
const ms = (min: number) => numberParam({ min, max: 60_000, int: true });
const SCROLL_ONLY = ' (scenario=scroll)';

/** The defaults of a screencast (format's is with the per-operation formats). */
export const SCREENCAST_DEFAULTS = {
  format: 'mp4',
  duration: 5,
  scenario: 'video',
  scroll_by_amount: 1_000,
  scroll_by_delay: 500,
  scroll_by_duration: 1_500,
  scroll_back: true,
  scroll_back_delay: 800,
  scroll_easing: 'linear',
} as const;
const d = SCREENCAST_DEFAULTS;

/** The parameters of a screencast beyond the shared page parameters. */
export const SCREENCAST_PARAMETERS = {
  duration: {
    operations: SCREENCAST,
    schema: numberParam({ min: 1, max: MAX_SCREENCAST_SECONDS }),
    description: 'Length of the video in seconds, recorded once the page is loaded and prepared.',
    default: d.duration,
  },
  scenario: {
    operations: SCREENCAST,
    schema: enumParam(SCREENCAST_SCENARIOS),
    description: 'video records the page as it is; scroll scrolls down it step by step (and back up).',
    default: d.scenario,
  },
  scroll_by_amount: {
    operations: SCREENCAST,
    schema: numberParam({ min: 1, max: 100_000, int: true }),
    description: `Pixels per scroll step${SCROLL_ONLY}.`,
    default: d.scroll_by_amount,
  },
  scroll_by_delay: { operations: SCREENCAST, schema: ms(0), description: `Milliseconds of pause before each step${SCROLL_ONLY}.`, default: d.scroll_by_delay },
  scroll_by_duration: {
    operations: SCREENCAST,
    schema: ms(1),
    description: `Milliseconds one step's movement takes${SCROLL_ONLY}.`,
    default: d.scroll_by_duration,
  },
  scroll_back: { operations: SCREENCAST, schema: boolParam(), description: `Scroll back to the top once the bottom is reached${SCROLL_ONLY}.`, default: d.scroll_back },
  scroll_back_delay: {
    operations: SCREENCAST,
    schema: ms(0),
    description: `Milliseconds of pause at the bottom before scrolling back${SCROLL_ONLY}.`,
    default: d.scroll_back_delay,
  },
  scroll_easing: {
    operations: SCREENCAST,
    schema: enumParam(SCROLL_EASINGS),
    description: `Speed curve of each scroll step${SCROLL_ONLY}.`,
    default: d.scroll_easing,
  },
};

/**
 * Milliseconds a render may take beyond `timeout`: a screencast records `duration` seconds once the
 * page is loaded and prepared, then finishes its file; other operations have nothing beyond it.
 */
export function recordingAllowanceMs(operation: string, params: { duration?: number | undefined }): number {
  if (operation !== 'screencast') return 0;
  return ((params.duration ?? SCREENCAST_DEFAULTS.duration) + SCREENCAST_FINISH_SECONDS) * 1000;
}

/**
 * The whole time a render may take, in milliseconds: `timeout` (default 30 s) covers loading and
 * preparing the page, which is the whole render for screenshots, PDFs and scrapes, plus a
 * screencast's recording allowance. Every deadline of a render (the renderer's, the edge's wait, a
 * task run's) is this budget.
 */
export function renderBudgetMs(operation: string, params: { timeout?: number | undefined; duration?: number | undefined }): number {
  return timeoutSecondsOf(params) * 1000 + recordingAllowanceMs(operation, params);
}
