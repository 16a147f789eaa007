import type { Page } from 'puppeteer-core';
import { SCREENCAST_DEFAULTS, SCREENCAST_FORMATS, type ScreencastFormat, type ScrollEasing } from '@app/render-params';
import type { RenderParams } from '@app/proto/render';
import type { Production } from '../types.js';
import { CONTAINERS } from './encoder-args.js';
import type { EncoderSource } from './encoder-source.js';
import { screencastRecorder } from './recorder.js';
import { runScrollScenario, type ScrollPlan } from './scroll-scenario.js';

export interface ScreencastEnv {
  /** Where recordings get their encoders (default: a new `ffmpeg` from the PATH for each). */
  encoders?: EncoderSource | undefined;
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
 * The screencast producer, started as soon as the page's viewport is set: its encoder and DevTools session
 * get ready while the page loads. `produce` then records the prepared page for `duration` seconds
 * (scrolling it in the `scroll` scenario) into a video of the viewport's size; the recording stops and
 * its encoder is killed when the render's deadline (`clock`) passes.
 */
export function screencastProducer(page: Page, params: RenderParams, env: ScreencastEnv = {}): Production {
  const format = isFormat(params.format) ? params.format : (SCREENCAST_DEFAULTS.format as ScreencastFormat);
  const recorder = screencastRecorder(page, {
    format,
    durationMs: (params.duration ?? SCREENCAST_DEFAULTS.duration) * 1000,
    encoders: env.encoders,
  });
  return {
    async produce(clock) {
      const signal = AbortSignal.timeout(clock.remainingMs());
      const plan = params.scenario === 'scroll' ? scrollPlanOf(params) : undefined;
      try {
        const body = await recorder.record({ signal, scenario: plan && (() => runScrollScenario(page, plan)) });
        return { body, contentType: CONTAINERS[format].contentType, extension: format };
      } catch (err) {
        if (signal.aborted) throw clock.timeoutError();
        throw err;
      }
    },
    abandon: () => recorder.abandon(),
  };
}
