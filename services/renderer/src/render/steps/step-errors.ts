import { AppError } from '@app/errors';
import type { BrowserStep } from '@app/proto/render';
import type { Countdown } from '../countdown.js';

/** A step and where it is in `steps`. */
export interface StepPlace {
  index: number;
  step: BrowserStep;
}

/** `steps[2] (click "#submit")`: how messages name a step (never the text a type step types). */
export function describeStep({ index, step }: StepPlace): string {
  const target = step.action === 'goto' ? step.url : step.action === 'press' ? step.key : step.action === 'wait' ? `${step.ms ?? 0} ms` : step.selector;
  return `steps[${index}] (${step.action}${target === undefined ? '' : ` ${JSON.stringify(shorten(target))}`})`;
}

/** render_timeout naming the step and what it was waiting for when time ran out. */
export function stepTimeout(clock: Countdown, place: StepPlace, waitingFor: string): AppError {
  return new AppError(
    'render_timeout',
    `The render did not finish within the timeout of ${clock.timeoutMs / 1000} seconds: ${describeStep(place)} was waiting for ${waitingFor}.`,
    { details: [{ parameter: `steps[${place.index}]`, message: `timed out waiting for ${waitingFor}` }] },
  );
}

const shorten = (s: string) => (s.length > 80 ? `${s.slice(0, 77)}...` : s);
