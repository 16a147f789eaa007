import type { Clock } from '../application/ports.js';

/** A clock the test moves by hand. */
export interface ControlledClock extends Clock {
  set(instant: number): void;
  advance(ms: number): number;
  ms(): number;
}

export function controlledClock(start: number): ControlledClock {
  let t = start;
  return {
    now: () => new Date(t),
    ms: () => t,
    set(instant) {
      t = instant;
    },
    advance(ms) {
      t += ms;
      return t;
    },
  };
}
