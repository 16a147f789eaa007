import type { RenderFinished, RenderParams } from '@app/proto/render';
import type { RenderOperation, RenderOutput } from '../render/types.js';

/** Carries out one render in a fresh isolated browser context. */
export interface Renderer {
  render(operation: RenderOperation, params: RenderParams, timeoutMs: number): Promise<RenderOutput>;
}

/** Keeps render results out of messages. */
export interface ResultSink {
  put(name: string, body: Uint8Array): Promise<void>;
}

/** Announces a finished render (success or failure). */
export interface FinishedPublisher {
  publish(event: RenderFinished): Promise<void>;
}

export interface TargetGuard {
  check(url: string, parameter: string): Promise<void>;
}

export interface Clock {
  now(): Date;
}
