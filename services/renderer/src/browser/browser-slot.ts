import { AppError } from '@app/errors';
import type { ManagedBrowser } from './managed-browser.js';
import type { WarmReserve } from './warm-reserve.js';

/** active → retiring (replacement launching, still serving) → draining (no new work) → closing; or → dead (crashed/killed). */
export type SlotState = 'active' | 'retiring' | 'draining' | 'closing' | 'dead';

/** A render holding a place on a browser; failed at once when its browser goes. */
export interface SlotLease {
  fail(err: AppError): void;
}

/** One Chromium process of a pool, with its warm contexts and the renders it runs. */
export interface Slot {
  readonly id: number;
  readonly managed: ManagedBrowser;
  state: SlotState;
  renders: number;
  readonly leases: Set<SlotLease>;
  readonly reserve: WarmReserve;
}

/** Re-reads the state after an await (TypeScript keeps the narrowing from before it). */
export function isAlive(slot: Slot): boolean {
  return slot.state !== 'dead';
}

export function accepting(slot: Slot): boolean {
  return slot.state === 'active' || slot.state === 'retiring';
}

export function browserGoneError(cause?: unknown): AppError {
  return new AppError('render_failed', 'The browser stopped during the render; retry the request.', { cause });
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
