import { describe, expect, it } from 'vitest';
import { CallerGone } from './caller-gone.js';

describe('CallerGone', () => {
  it('should abort a signal asked for before the caller left, once it leaves', () => {
    const caller = new CallerGone();
    const signal = caller.signal;
    let aborts = 0;
    signal.addEventListener('abort', () => aborts++);
    expect(signal.aborted).toBe(false);
    expect(caller.gone).toBe(false);
    caller.leave();
    caller.leave();
    expect(signal.aborted).toBe(true);
    expect(caller.gone).toBe(true);
    expect(aborts).toBe(1);
  });

  it('should hand out an aborted signal when first asked after the caller left', () => {
    const caller = new CallerGone();
    caller.leave();
    expect(caller.gone).toBe(true);
    expect(caller.signal.aborted).toBe(true);
  });

  it('should hand out one signal however often it is asked', () => {
    const caller = new CallerGone();
    expect(caller.signal).toBe(caller.signal);
  });
});
