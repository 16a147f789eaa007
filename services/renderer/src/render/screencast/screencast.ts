import type { Page } from 'puppeteer-core';
import { SCREENCAST_DEFAULTS, SCREENCAST_FORMATS, type ScreencastFormat, type ScrollEasing } from '@app/render-params';
import type { RenderParams } from '@app/proto/render';
import type { Countdown } from '../countdown.js';
import type { Artifact } from '../types.js';
import { CONTAINERS } from './encoder-args.js';
import { recordScreencast } from './recorder.js';
import { runScrollScenario, type ScrollPlan } from './scroll-scenario.js';

export interface ScreencastEnv {
  /** The ffmpeg binary (default: `ffmpeg` on the PATH). */
  ffmpegPath?: string | undefined;
}

const isFormat = (v: string | undefined): v is ScreencastFormat => (SCREENCAST_FORMATS as readonly string[]).includes(v ?? '');

/** The scroll scenario's plan from the parameters (validated, so defaults only fill what is absent). */
export function scrollPlanOf(params: RenderParams): ScrollPlan {
  const d = SCREENCAST_DEFAULTS;
  return {
    amount: params.scroll_by_amount ?? d.scroll_by_amount,
    delayMs: params.scroll_by_delay ?? d.scroll_by_delay,
    durationMs: params.scroll_by_duration ?? d.scroll_by_duration,
    back: params.scroll_back ?? d.scroll_back,
    backDelayMs: params.scroll_back_delay ?? d.scroll_back_delay,
    easing: (params.scroll_easing ?? d.scroll_easing) as ScrollEasing,
  };
}

/**
 * The screencast producer: records the prepared page for `duration` seconds (scrolling it in the
 * `scroll` scenario) into a video of the viewport's size. The recording stops and its encoder is
 * killed when the render's deadline (`clock`) passes.
 */
export async function recordPage(page: Page, params: RenderParams, clock: Countdown, env: ScreencastEnv = {}): Promise<Artifact> {
  const format = isFormat(params.format) ? params.format : (SCREENCAST_DEFAULTS.format as ScreencastFormat);
  const signal = AbortSignal.timeout(clock.remainingMs());
  const plan = params.scenario === 'scroll' ? scrollPlanOf(params) : undefined;
  try {
    const body = await recordScreencast(page, {
      format,
      durationMs: (params.duration ?? SCREENCAST_DEFAULTS.duration) * 1000,
      signal,
      scenario: plan && (() => runScrollScenario(page, plan)),
      ffmpegPath: env.ffmpegPath,
    });
    return { body, contentType: CONTAINERS[format].contentType, extension: format };
  } catch (err) {
    if (signal.aborted) throw clock.timeoutError();
    throw err;
  }
}
